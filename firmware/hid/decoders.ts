// The HID scanners' decoders (keyboard wedge with its layouts, HID POS): compiled apart, on the first HID
// report (tools/build.ts `LAZY_PARTS`, seam firmware/hid.ts); what they share with the serial decoder
// comes from the core (firmware/kit.ts).
import { KeyboardWedgeDecoder } from '../../src/input/keyboard.ts';
import { HidPosDecoder } from '../../src/input/hid-pos.ts';

/** A new decoder for a HID input in `mode`. */
export function hidDecoder(mode: 'keyboard' | 'pos'): KeyboardWedgeDecoder | HidPosDecoder {
  return mode === 'keyboard' ? new KeyboardWedgeDecoder() : new HidPosDecoder();
}
