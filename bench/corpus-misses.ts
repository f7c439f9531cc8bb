// Which labelled photos of the corpus (../shared/corpus) still mode misses or misreads, and what it gives
// instead: as `saphir decode` reads them (the firmware's jsQR with the host's Shift_JIS and GB 2312 text,
// host/jsqr.ts) and as the device reads them (camera.ts and jsQR bundled as the firmware bundles them).
// A binary payload is judged by its bytes (../shared/corpus/README.md).
// `node --import tsx bench/corpus-misses.ts [PHOTO…]` (all labelled photos without one; a named photo is
// shown even when both read it).
import { CameraDecoder } from '../src/input/camera.ts';
import { hostJsQR } from '../host/jsqr.ts';
import { bundledCameraDecoder, loadCorpus, readsLabel } from './input.bench.ts';

const Device = await bundledCameraDecoder();
const jsQR = await hostJsQR();
const only = process.argv.slice(2);
const show = (s: string | null) => (s === null ? 'null' : JSON.stringify(s).slice(0, 100));
const tally = { host: 0, device: 0, labelled: 0 };
for (const it of loadCorpus()) {
  if (only.length && !only.includes(it.name)) continue;
  if (it.expected === null) continue;
  tally.labelled++;
  const host = new CameraDecoder({ mode: 'still', jsQR });
  const device = new Device({ mode: 'still' });
  const h = { text: host.decode(it.frame), bytes: host.bytes };
  const d = { text: device.decode(it.frame), bytes: device.bytes };
  const hostOk = readsLabel(it, h);
  const deviceOk = readsLabel(it, d);
  if (hostOk) tally.host++;
  if (deviceOk) tally.device++;
  if (!hostOk || !deviceOk || only.length) {
    const f = it.frame;
    console.log(
      `${it.name} ${f.width}×${f.height}, label from ${it.zxingOnly ? 'ZXing-C++' : 'stock jsQR'}${it.bytes ? ', judged by its bytes' : ''}`,
    );
    console.log(`  label  ${show(it.expected)}`);
    console.log(`  host   ${hostOk ? 'same' : show(h.text)}`);
    console.log(`  device ${deviceOk ? 'same' : show(d.text)}`);
  }
}
console.log(
  `${tally.labelled} labelled: host reads ${tally.host}, device ${tally.device} (their bytes for a binary payload, else their text)`,
);
