// The HID decoders' seam (as registry.ts is the link's): the firmware bundle carries them packed and
// compiles them on the first report of a HID scanner (firmware/app/inputs.ts, tools/build.ts
// `LAZY_PARTS`). Unbundled (tests in Node), the module itself.
import { hidDecoder as make } from './hid/decoders.ts';

export const hidDecoder: typeof make = make;
