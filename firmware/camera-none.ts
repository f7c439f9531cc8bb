// The camera seam of a build without camera support (see camera.ts).
import type { FrameDecoder } from './camera.ts';

export const newFrameDecoder: (() => FrameDecoder) | null = null;
