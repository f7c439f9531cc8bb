// The camera path (pulls in jsQR). build.mjs replaces this module with camera-none.ts for the
// camera-less core variant, which is how the core budget is measured.
import { CameraDecoder } from '../src/input/camera.ts';
import type { Frame } from '../src/hal.ts';

export interface FrameDecoder {
  decode(frame: Frame): string | null;
}

export const newFrameDecoder: (() => FrameDecoder) | null = () => new CameraDecoder();
