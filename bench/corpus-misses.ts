// Which labelled photos of the corpus (../shared/corpus) still mode misses or misreads, and what it gives
// instead: as `saphir decode` reads them (the firmware's jsQR with the host's Shift_JIS and GB 2312 text,
// host/jsqr.ts) and as the device reads them (camera.ts and jsQR bundled as the firmware bundles them).
// `node --import tsx bench/corpus-misses.ts [PHOTO…]` (all labelled photos without one; a named photo is
// shown even when both read it).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { CameraDecoder } from '../src/input/camera.ts';
import { hostJsQR } from '../host/jsqr.ts';
import { labelText, bundledCameraDecoder } from './input.bench.ts';

const CORPUS = join(import.meta.dirname, '..', '..', 'shared', 'corpus', 'jsqr-e2e');
const labels = (
  JSON.parse(readFileSync(join(CORPUS, '..', 'zxing-extra-labels.json'), 'utf8')) as {
    labels: Record<string, { data: string }>;
  }
).labels;
const Device = await bundledCameraDecoder();
const jsQR = await hostJsQR();
const only = process.argv.slice(2);
const show = (s: string | null) => (s === null ? 'null' : JSON.stringify(s).slice(0, 100));
const tally = { host: 0, device: 0, labelled: 0 };
for (const d of readdirSync(CORPUS)) {
  if (only.length && !only.includes(d)) continue;
  const png = join(CORPUS, d, 'input.png');
  if (!existsSync(png)) continue;
  const out = JSON.parse(readFileSync(join(CORPUS, d, 'output.json'), 'utf8')) as { data: string } | null;
  const expected = out ? out.data : labels[d] ? labelText(labels[d].data) : null;
  if (expected === null) continue;
  tally.labelled++;
  const img = PNG.sync.read(readFileSync(png));
  const frame = { width: img.width, height: img.height, format: 'rgba' as const, data: new Uint8Array(img.data) };
  const host = new CameraDecoder({ mode: 'still', jsQR }).decode(frame);
  const device = new Device({ mode: 'still' }).decode(frame);
  if (host === expected) tally.host++;
  if (device === expected) tally.device++;
  if (host !== expected || device !== expected || only.length) {
    console.log(`${d} ${img.width}×${img.height}, label from ${out ? 'stock jsQR' : 'ZXing-C++'}`);
    console.log(`  label  ${show(expected)}`);
    console.log(`  host   ${host === expected ? 'same' : show(host)}`);
    console.log(`  device ${device === expected ? 'same' : show(device)}`);
  }
}
console.log(`${tally.labelled} labelled: host reads ${tally.host}, device ${tally.device} with the label's text`);
