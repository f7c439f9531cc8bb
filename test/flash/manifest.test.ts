// Issue #35, item 7: BEGIN is tied to the signed header. An image carries a second signature, of its
// manifest (header + SHA-256, TLV 0xA0); BEGIN checks it, so a header forged around a genuine signed hash
// is refused before any flash operation (it used to erase 64 KiB of the inactive slot before FINISH
// refused), and the session writes only the header and TLV area BEGIN named. Images of the format before
// (no manifest signature) still boot and install from memory; the service port refuses them, and says why.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FACTORY, flashDevice, directPort } from './harness.ts';
import { image, tempFiles } from './images.ts';
import { bootChip, Simulator } from '../../hw-sim/sim.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { CMD } from '../../src/service/packet.ts';
import { beginPayload, writePayload, WRITE_MISMATCH, WRITE_OK } from '../../src/service/protocol.ts';
import { HEADER_SIZE, parseImage } from '../../src/image/format.ts';
import { readJournal } from '../../rom/update.ts';
import { installImage, provision, readBootState } from '../../rom/bootloader.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { saphirIn } from '../cli/run-cli.ts';
import { rmSync } from 'node:fs';

const NEW = image({ version: '1.1.0', counter: 2, size: 20000, salt: 41 });
const OLD_FORMAT = image({ version: '1.1.0', counter: 2, size: 20000, salt: 42, manifest: false });

const parsed = (img: Uint8Array) => {
  const p = parseImage(img);
  if ('error' in p) throw new Error(p.error);
  return p;
};
const begin = (img: Uint8Array) => beginPayload(img, parsed(img).signedLength, HEADER_SIZE);

/** `img` with its header changed by `f` (sizes kept consistent) and its TLV area as signed: a forgery. */
function forged(img: Uint8Array, f: (dv: DataView) => void): Uint8Array {
  const out = img.slice();
  f(new DataView(out.buffer, out.byteOffset, HEADER_SIZE));
  return out;
}

async function session() {
  const dev = await flashDevice();
  const port = directPort(dev);
  assert.is(port.authenticate().reply.ok, true);
  return { dev, ...port };
}

test('a header forged around a genuine signed hash is refused at BEGIN, before any flash operation', async () => {
  const { dev, json } = await session();
  const slotB = Buffer.from(dev.chip.bytes.subarray(LAYOUT.slotB.offset, LAYOUT.slotB.offset + 0x10000));
  for (const [what, f] of [
    ['security counter raised', (dv: DataView) => dv.setUint32(24, 9, true)],
    ['version changed', (dv: DataView) => dv.setUint8(12, 7)],
    ['build number changed', (dv: DataView) => dv.setUint32(16, 1234, true)],
  ] as const) {
    const ops = dev.chip.ops;
    const r = json(CMD.BEGIN, begin(forged(NEW, f)));
    assert.is(r.ok, false, what);
    assert.is(r.reason, 'signature', what);
    assert.match(String(r.detail), /manifest signature does not verify/, what);
    assert.is(dev.chip.ops, ops, `${what}: not one erase or program`);
  }
  assert.is(readJournal(bootChip(dev.chip)), null, 'no journal');
  assert.ok(
    Buffer.from(dev.chip.bytes.subarray(LAYOUT.slotB.offset, LAYOUT.slotB.offset + 0x10000)).equals(slotB),
    'the inactive slot untouched',
  );
  // The genuine header goes through.
  assert.is(json(CMD.BEGIN, begin(NEW)).ok, true);
});

test('the session writes only the header and TLV area BEGIN named (WRITE status 5), then completes', async () => {
  const { dev, json, ask } = await session();
  assert.is(json(CMD.BEGIN, begin(NEW)).ok, true);
  const last = Math.floor((NEW.length - 1) / 4096) * 4096;
  const other = forged(NEW, (dv) => dv.setUint8(13, 9));
  const tail = NEW.slice(last);
  tail[tail.length - 70] ^= 1; // inside the TLV area: a signature byte
  const ops = dev.chip.ops;
  const first = ask(CMD.WRITE, writePayload(0, other.subarray(0, 4096)));
  assert.is(first.payload[0], WRITE_MISMATCH, 'another header');
  const end = ask(CMD.WRITE, writePayload(last, tail));
  assert.is(end.payload[0], WRITE_MISMATCH, 'another TLV area');
  assert.is(dev.chip.ops, ops, 'nothing programmed');
  for (let o = 0; o < NEW.length; o += 4096)
    assert.is(ask(CMD.WRITE, writePayload(o, NEW.subarray(o, Math.min(o + 4096, NEW.length)))).payload[0], WRITE_OK);
  const f = json(CMD.FINISH);
  assert.is(f.ok, true, JSON.stringify(f));
  assert.is(readBootState(bootChip(dev.chip)).trial, 1);
});

test('an image of the format before the manifest: refused at BEGIN with the reason, still boots and installs', async () => {
  const { dev, json } = await session();
  const ops = dev.chip.ops;
  const r = json(CMD.BEGIN, begin(OLD_FORMAT));
  assert.is(r.ok, false);
  assert.is(r.reason, 'manifest');
  assert.match(String(r.detail), /no signed manifest/);
  assert.is(dev.chip.ops, ops, 'nothing written');
  // In a slot (a device programmed before), it boots; from memory, it installs.
  const chip = new NorFlash();
  provision(bootChip(chip), OLD_FORMAT, 1);
  const sim = new Simulator({ chip, firmwareModel: { selfTestPasses: true } });
  await sim.boot();
  assert.is(sim.booted?.version, '1.1.0');
  assert.is(installImage(bootChip(chip), FACTORY).ok, true);
  assert.is(installImage(bootChip(dev.chip), OLD_FORMAT).ok, true);
  sim.dispose();
  dev.dispose();
});

test('saphir image inspect shows the manifest; saphir flash refuses an old-format file before opening a port', async () => {
  const { dir, file } = tempFiles('saphir-manifest-');
  const oldFile = file('old.img', OLD_FORMAT);
  const newFile = file('new.img', NEW);
  const i = await saphirIn(['image', 'inspect', '--lang', 'en', oldFile]);
  assert.is(i.code, 0, i.stderr);
  assert.match(i.stdout, /Manifest\s+none \(format before 4 Dec 2026\): boots, but the service port refuses it/);
  assert.match((await saphirIn(['image', 'inspect', '--lang', 'en', newFile])).stdout, /Manifest\s+signed/);
  assert.is(JSON.parse((await saphirIn(['image', 'inspect', '--json', oldFile])).stdout).manifest, 'absent');
  const f = await saphirIn(['flash', '--port', `${dir}/no-such-port`, '--lang', 'en', oldFile]);
  assert.is(f.code, 1);
  assert.match(f.stderr, /image without a signed manifest \(built before 4 Dec 2026\): build and sign it again/);
  const fr = await saphirIn(['flash', '--port', `${dir}/no-such-port`, oldFile]);
  assert.match(fr.stderr, /image sans manifeste signé/);
  rmSync(dir, { recursive: true, force: true });
});

test.run();
