// Named simulated devices (--device-id) on a registry, beside sim-device-id.test.ts's cases.
import './sim-device-id.test.ts';
