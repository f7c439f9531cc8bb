// Test images signed with the development key (node:crypto for speed).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packImage, parseImage, BOARD_ID, DEV_FIRMWARE_SEED_HEX } from '../../src/image/format.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';

export const DEV_SEED = fromHex(DEV_FIRMWARE_SEED_HEX);

export function bundleOf(size: number, salt: number): Uint8Array {
  const b = new Uint8Array(size);
  let s = (salt * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    b[i] = s & 0xff;
  }
  return b;
}

export function image(o: {
  version: string;
  counter?: number;
  size?: number;
  board?: number;
  seed?: Uint8Array;
  salt?: number;
  /** false: the format before 4 Dec 2026, without the manifest signature. */
  manifest?: boolean;
}): Uint8Array {
  return packImage({
    bundle: bundleOf(o.size ?? 20000, o.salt ?? o.version.length * 31 + (o.counter ?? 0)),
    version: o.version,
    boardId: o.board ?? BOARD_ID,
    securityCounter: o.counter ?? 1,
    seed: o.seed ?? DEV_SEED,
    sign: nodeSign,
    manifest: o.manifest,
  });
}

/** The SHA-256 an image's header announces, hex. */
export function hashOf(b: Uint8Array): string {
  const p = parseImage(b);
  if ('error' in p) throw new Error(p.error);
  return toHex(p.hash);
}

/** A temp folder (the test removes it) and `file`, writing a named file in it (the CLI takes files). */
export function tempFiles(prefix: string): { dir: string; file: (name: string, data: string | Uint8Array) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = (name: string, data: string | Uint8Array) => {
    const p = join(dir, name);
    writeFileSync(p, data);
    return p;
  };
  return { dir, file };
}
