// Host Ed25519: libsodium (sodium-native) where it loads, node:crypto otherwise. Same signatures byte
// for byte, the same verdicts as the device's rules on genuine and tampered signatures, small-order
// keys refused, and `saphir audit --json` says which library ran (SAPHIR_CRYPTO=node forces node:crypto).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { sign as osslSign, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Point } from '@noble/ed25519';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8Encode } from '../../src/utf8.ts';
import { sodium } from '../../tools/sodium.ts';
import {
  HOST_CRYPTO,
  nodeCryptoPublicKeyOf,
  nodeCryptoVerify,
  nodePublicKeyOf,
  nodeSha256Text,
  nodeSign,
  nodeVerify,
} from '../../tools/node-crypto.ts';
import { nobleVerify, publicKeyOf } from '../../src/crypto/ed25519.ts';
import { blockGenerator } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import { RangeEncoder } from '../../host/workers/gen-core.ts';
import { ROOT, signedThenFlipped } from '../helpers.ts';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const opensslSign = (m: Uint8Array, seed: Uint8Array) =>
  new Uint8Array(
    osslSign(null, m, createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' })),
  );

const missing = !sodium && process.env.SAPHIR_CRYPTO !== 'node';
if (!sodium) {
  const msg = missing
    ? 'sodium-native does not load here: the host signs and verifies with node:crypto'
    : 'SAPHIR_CRYPTO=node';
  if (missing && process.env.SAPHIR_TEST_STRICT === '1') throw new Error(msg);
  console.log(`  SKIP (libsodium tests): ${msg}`);
}

test('HOST_CRYPTO names the library that loaded', () => {
  assert.is(HOST_CRYPTO, sodium ? 'sodium-native' : 'node:crypto');
});

test("a seed's public key: libsodium's and node:crypto's are noble's; a seed of another length is refused", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
      const want = Buffer.from(publicKeyOf(seed)).toString('hex');
      assert.is(Buffer.from(nodeCryptoPublicKeyOf(seed)).toString('hex'), want, 'node:crypto');
      if (sodium) assert.is(Buffer.from(sodium.publicKeyOf(seed)).toString('hex'), want, 'libsodium');
      assert.is(Buffer.from(nodePublicKeyOf(seed)).toString('hex'), want, 'the host');
    }),
    { numRuns: 200 },
  );
  assert.throws(() => nodePublicKeyOf(new Uint8Array(31)), /32 bytes/);
  assert.throws(() => nodePublicKeyOf(new Uint8Array(64)), /32 bytes/);
});

test("a text's SHA-256 (a bundle's identity): node:crypto's over its UTF-8 bytes is noble's, whatever the characters", () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      assert.equal(nodeSha256Text(text), sha256(utf8Encode(text)));
    }),
    { numRuns: 200 },
  );
  assert.equal(nodeSha256Text('PAYÉ €'), sha256(new Uint8Array(Buffer.from('PAYÉ €', 'utf8'))));
});

test('libsodium signs exactly what node:crypto signs (deterministic Ed25519)', () => {
  if (!sodium) return;
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 200 }), (seed, m) => {
      const a = sodium!.sign(m, seed);
      return (
        Buffer.from(a).equals(Buffer.from(opensslSign(m, seed))) &&
        Buffer.from(nodeSign(m, seed)).equals(Buffer.from(a))
      );
    }),
    { numRuns: 200 },
  );
});

test('libsodium accepts genuine signatures and never accepts what noble (the device rule) refuses', () => {
  if (!sodium) return;
  const s = sodium;
  fc.assert(
    fc.property(
      signedThenFlipped((m, seed) => s.sign(m, seed)),
      ({ sig, msg, pub, s: fs, m, p }) => {
        if (!s.verify(sig, msg, pub) || !nodeVerify(sig, msg, pub)) return false;
        return !s.verify(fs, m, p) || nobleVerify(fs, m, p);
      },
    ),
    { numRuns: 300 },
  );
});

test('a small-order key is refused (a signature that satisfies the equation for the neutral point)', () => {
  if (!sodium) return;
  // A = neutral point: [s]B − [k]A = [s]B, so R = [s]B makes the cofactorless equation hold for any S.
  const A = new Uint8Array(32);
  A[0] = 1;
  const s = 12345n;
  const sig = new Uint8Array(64);
  sig.set(Point.BASE.multiply(s).toBytes(), 0);
  sig.set(
    Uint8Array.from({ length: 32 }, (_, i) => Number((s >> BigInt(8 * i)) & 255n)),
    32,
  );
  const m = new Uint8Array([1, 2, 3]);
  assert.is(nobleVerify(sig, m, A), false);
  assert.is(sodium.verify(sig, m, A), false);
  assert.is(nodeVerify(sig, m, A), false);
  // node:crypto alone takes it: this tells apart the library the bench's `node_crypto` figures measure.
  assert.is(nodeCryptoVerify(sig, m, A), true);
});

test('saphir audit --json says which library verified; node:crypto (SAPHIR_CRYPTO=node) gives the same report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'saphir-crypto-test-'));
  try {
    const file = join(dir, 'codes.txt');
    const enc = new RangeEncoder(blockGenerator('t', 1, 1), { keyId: 0, seed: fromHex(TEST_KEY_SEED_HEX) }, nodeSign);
    const lines = Buffer.from(enc.encode(0, 60)).toString('latin1').trimEnd().split('\n');
    lines[5] = lines[5].slice(0, 120) + (lines[5][120] === 'A' ? 'B' : 'A') + lines[5].slice(121);
    // Every other kind of line audit's fast path meets: outside the alphabet, short, a duplicate,
    // blank, CR LF, surrounding blanks.
    lines[10] = lines[10].slice(0, 50) + 'a' + lines[10].slice(51);
    lines[12] = lines[12].slice(0, -3);
    lines[15] = lines[3];
    lines[20] = '   ';
    lines[21] += '\r';
    lines[22] = ` ${lines[22]}\t`;
    writeFileSync(file, lines.join('\n') + '\n', 'latin1');
    const run = (env: Record<string, string>) => {
      const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'saphir.mjs'), 'audit', file, '--json', '--jobs', '1'], {
        cwd: ROOT,
        env: { ...process.env, SAPHIR_DEBUG: '', ...env },
      });
      return JSON.parse(r.stdout.toString('utf8'));
    };
    const fast = run({ SAPHIR_CRYPTO: '' });
    const fallback = run({ SAPHIR_CRYPTO: 'node' });
    assert.is(fast.crypto, missing ? 'node:crypto' : 'sodium-native');
    assert.is(fallback.crypto, 'node:crypto');
    assert.is(fast.invalid.count, 3);
    assert.equal(fast.invalid.by_reason, { E_SIGNATURE: 1, E_BASE45: 1, E_LENGTH: 1 });
    assert.is(fast.blank_lines, 1);
    assert.is(fast.blocks[0].duplicates, 1);
    assert.equal({ ...fast, crypto: '' }, { ...fallback, crypto: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
