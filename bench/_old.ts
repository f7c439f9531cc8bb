import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { CameraDecoder } from './_oldcam.ts';
import { degradedFrames } from '../test/input/degraded.ts';
const jsQR = ((jsQRModule as any).default || jsQRModule) as typeof jsQRModule.default;
const vectors = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'shared', 'spec', 'sph1-vectors.json'), 'utf8')).vectors as { code: string }[];
const codes = vectors.map((v) => v.code).filter((c) => c.startsWith('SPH1:') && c.length === 164).slice(0, 8);
let stock = 0, first = 0;
for (const { frame, text } of degradedFrames(codes, 300)) {
  const rgba = new Uint8ClampedArray(640 * 480 * 4);
  for (let p = 0; p < 640 * 480; p++) { rgba[4*p]=rgba[4*p+1]=rgba[4*p+2]=frame.data[p]; rgba[4*p+3]=255; }
  const r = jsQR(rgba, 640, 480, { inversionAttempts: 'attemptBoth' });
  if (!r || r.data !== text) continue;
  stock++;
  if (new CameraDecoder().decode(frame) === text) first++;
}
console.log('before', stock, first, first / stock);
