// The scanner models by name, with their options checked: `transmit(via, code, options, rng)`.
import type { Rng } from '../rng.ts';
import { cameraTransmit, type CameraScanOptions } from './camera.ts';
import { posTransmit, type PosOptions } from './hid-pos.ts';
import { wedgeTransmit, type WedgeOptions } from './keyboard-wedge.ts';
import { serialTransmit, type SerialScanOptions } from './serial.ts';
import { SCANNER_KINDS, ScannerOptionError, type ScannerKind, type Transmission } from './types.ts';

export { SCANNER_KINDS, ScannerOptionError, type ScannerKind, type Transmission };
export type { Delivery } from './types.ts';

/** Option names each model accepts, with their type (checked by the scenario validator too). */
export const MODEL_OPTIONS: Record<ScannerKind, Record<string, 'number' | 'string' | 'boolean'>> = {
  'hid-keyboard': { layout: 'string', delay: 'number', suffix: 'string' },
  'hid-pos': { interval: 'number', aim: 'string' },
  serial: { baud: 'number', terminator: 'string', aim: 'boolean', noise: 'number', fifo: 'number' },
  camera: {
    width: 'number',
    height: 'number',
    module: 'number',
    blur: 'number',
    noise: 'number',
    perspective: 'number',
    glare: 'number',
    frames: 'number',
    fps: 'number',
  },
};

export type ModelOptions = Record<string, number | string | boolean>;

export function transmit(via: ScannerKind, code: string, options: ModelOptions, rng: Rng): Transmission {
  const known = MODEL_OPTIONS[via];
  if (!known) throw new ScannerOptionError(`unknown scanner '${via}'`);
  for (const [k, v] of Object.entries(options)) {
    if (!(k in known)) throw new ScannerOptionError(`${via} has no option '${k}'`);
    if (typeof v !== known[k]) throw new ScannerOptionError(`${via} option '${k}' must be a ${known[k]}`);
  }
  switch (via) {
    case 'hid-keyboard':
      return wedgeTransmit(code, options as WedgeOptions);
    case 'hid-pos':
      return posTransmit(code, options as PosOptions);
    case 'serial':
      return serialTransmit(code, options as SerialScanOptions, rng);
    case 'camera':
      return cameraTransmit(code, options as CameraScanOptions, rng);
  }
}
