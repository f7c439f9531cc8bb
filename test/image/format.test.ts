import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  packImage,
  parseImage,
  verifyImage,
  parseVersion,
  compareVersions,
  BOARD_ID,
  DEV_FIRMWARE_SEED_HEX,
  DEV_FIRMWARE_PUBLIC_KEY_HEX,
  HEADER_SIZE,
} from '../../src/image/format.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { publicKeyOf } from '../../src/crypto/ed25519.ts';
import { nodeSign, nodeVerify } from '../../tools/node-crypto.ts';

const seed = fromHex(DEV_FIRMWARE_SEED_HEX);
const pub = fromHex(DEV_FIRMWARE_PUBLIC_KEY_HEX);
const bundle = new Uint8Array(1000).map((_, i) => (i * 7) & 0xff);
const img = packImage({ bundle, version: '1.2.3+4', boardId: BOARD_ID, securityCounter: 5, seed, sign: nodeSign });

test('dev key constants agree', () => {
  assert.is(toHex(publicKeyOf(seed)), DEV_FIRMWARE_PUBLIC_KEY_HEX);
});

test('pack → parse → verify round trip', () => {
  const p = parseImage(img);
  if ('error' in p) throw new Error(p.error);
  assert.is(p.versionText, '1.2.3+4');
  assert.is(p.header.boardId, BOARD_ID);
  assert.is(p.header.securityCounter, 5);
  assert.equal(Array.from(p.bundle), Array.from(bundle));
  assert.is(p.totalSize, img.length);
  const v = verifyImage(img, pub);
  assert.ok(v.ok);
  assert.ok(verifyImage(img, pub, { verify: nodeVerify }).ok);
});

test('noble and node signers agree', () => {
  const a = packImage({ bundle, version: '1.0.0', boardId: 1, securityCounter: 0, seed });
  const b = packImage({ bundle, version: '1.0.0', boardId: 1, securityCounter: 0, seed, sign: nodeSign });
  assert.equal(Array.from(a), Array.from(b));
});

test('every single-byte corruption is refused', () => {
  for (let i = 0; i < img.length; i += 13) {
    const bad = img.slice();
    bad[i] ^= 0x40;
    const v = verifyImage(bad, pub, { verify: nodeVerify });
    assert.not.ok(v.ok, `byte ${i}`);
  }
});

test('every truncation is refused and never throws', () => {
  for (let n = 0; n < img.length; n += 17) {
    const v = verifyImage(img.subarray(0, n), pub, { verify: nodeVerify });
    assert.not.ok(v.ok);
    if (!v.ok) assert.is(v.reason, 'malformed');
  }
  assert.not.ok(verifyImage(new Uint8Array([...img, 0xff]), pub).ok);
  assert.ok(verifyImage(new Uint8Array([...img, 0xff, 0xff]), pub, { exact: false }).ok);
});

test('another key is refused', () => {
  const other = packImage({
    bundle,
    version: '1.0.0',
    boardId: BOARD_ID,
    securityCounter: 0,
    seed: new Uint8Array(32).fill(9),
  });
  const v = verifyImage(other, pub);
  assert.not.ok(v.ok);
  if (!v.ok) assert.is(v.reason, 'signature');
});

test('garbage never throws', () => {
  let s = 1;
  for (let k = 0; k < 300; k++) {
    const n = (s = (s * 1103515245 + 12345) >>> 0) % 400;
    const g = new Uint8Array(n).map(() => (s = (s * 1103515245 + 12345) >>> 0) >>> 24);
    if (k % 2 && n >= HEADER_SIZE) g.set(img.subarray(0, HEADER_SIZE));
    assert.not.ok(verifyImage(g, pub).ok);
  }
});

test('versions', () => {
  assert.equal(parseVersion('1.2.3'), { major: 1, minor: 2, patch: 3, build: 0 });
  assert.ok('error' in parseVersion('1.2'));
  assert.ok('error' in parseVersion('256.0.0'));
  assert.ok(
    compareVersions({ major: 1, minor: 10, patch: 0, build: 0 }, { major: 1, minor: 9, patch: 9, build: 9 }) > 0,
  );
  assert.throws(() => packImage({ bundle, version: 'x', boardId: 1, securityCounter: 0, seed }));
});

test.run();
