// The scanner decoders without the camera (which pulls in jsQR: import ./camera.ts for it).
export type { InputEvent, DropReason } from './event.ts';
export { KeyboardWedgeDecoder, keyChar, type KeyboardLayout, type KeyboardWedgeOptions } from './keyboard.ts';
export { HidPosDecoder, type HidPosOptions } from './hid-pos.ts';
export { SerialDecoder, ACK, NAK, type SerialDecoderOptions } from './serial.ts';
