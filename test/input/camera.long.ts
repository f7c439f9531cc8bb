// The whole degraded-frames sweep of camera.test.ts (stock jsQR on every frame, the set drawn twice).
import './camera.test.ts';
