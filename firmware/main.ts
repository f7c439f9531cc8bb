// The bundle's entry: start the application on the device's HAL.
import type { Device } from '../src/hal.ts';
import { App } from './app.ts';

const app = new App((globalThis as unknown as { device: Device }).device);
(globalThis as unknown as { saphir: unknown }).saphir = app;
app.start();
