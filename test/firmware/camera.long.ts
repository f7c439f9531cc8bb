// The whole heap soak of camera.test.ts: 60 decoded frames (30 in npm test).
import './camera.test.ts';
