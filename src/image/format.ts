// The signed firmware image (docs/firmware-image.md), modelled on MCUboot's:
//   header (32 bytes, little-endian) · bundle (imageSize bytes) · TLV area (info + records).
// The SHA-256 covers header + bundle; the Ed25519 signature by the firmware key covers that hash. A second
// signature covers the manifest (header + that hash), so the service port's BEGIN, which sees the header and
// the TLV area without the bundle, can tell a genuine header from a forged one before erasing anything.
// Portable: ES2020 only. parseImage / verifyImage never throw.
import { sha256 } from '@noble/hashes/sha2.js';
import { nobleSign, nobleVerify, publicKeyOf, type Signer, type Verifier } from '../crypto/ed25519.ts';
import { toHex } from '../hex.ts';
import { equalBytes } from '../bytes.ts';

/** MCUboot's image magic. */
export const IMAGE_MAGIC = 0x96f3b83d;
export const HEADER_SIZE = 32;
/** TLV info header magic (MCUboot's unprotected TLV area). */
export const TLV_INFO_MAGIC = 0x6907;
export const TLV_INFO_SIZE = 4;
export const TLV_SHA256 = 0x10;
export const TLV_ED25519 = 0x24;
/** SHA-256 of the signing public key, so a tool can tell which key signed. */
export const TLV_KEYHASH = 0x01;
/**
 * Ed25519 signature of `manifestMessage(header, hash)` (MCUboot's vendor range: SAPHIR's own). Images built
 * before it existed (4 Dec 2026) lack it: they still boot, and install from memory, but the service port
 * refuses them at BEGIN (docs/firmware-image.md).
 */
export const TLV_MANIFEST_ED25519 = 0xa0;
const MANIFEST_CONTEXT = 'SAPHIR image manifest v1';

/** Board id of the SAPHIR handheld scanner ("SH" rev 1). */
export const BOARD_ID = 0x53480001;

/** The published development signing key: anyone can sign with it; production builds use a key file. */
export const DEV_FIRMWARE_SEED_HEX = '4479eef18375227c94ebcf754e17e8b4f8624f046c4021339c9ba807c6c807e1';
export const DEV_FIRMWARE_PUBLIC_KEY_HEX = 'e46241399d6d16f3f43d528e782b255b47c906e3abb8edecaf02b36085a2735e';

/** Flags (header offset 6). None defined yet; must be 0. */
export const KNOWN_FLAGS = 0;

export interface Version {
  major: number;
  minor: number;
  patch: number;
  build: number;
}

export interface ImageHeader {
  magic: number;
  headerSize: number;
  flags: number;
  imageSize: number;
  version: Version;
  boardId: number;
  securityCounter: number;
}

export interface ParsedImage {
  header: ImageHeader;
  /** "major.minor.patch+build" */
  versionText: string;
  /** A view into the input bytes. */
  bundle: Uint8Array;
  /** The SHA-256 recorded in the TLV area (not yet checked: see verifyImage). */
  hash: Uint8Array;
  signature: Uint8Array;
  /** SHA-256 of the signer's public key, when recorded. */
  keyHash?: Uint8Array;
  /** Signature of the manifest (header + hash), absent in images built before it existed. */
  manifestSignature?: Uint8Array;
  /** The header's 32 bytes as they are in the image (a view). */
  headerBytes: Uint8Array;
  /** Header + bundle: the hashed region. */
  signedLength: number;
  /** Header + bundle + TLV area: the whole image. */
  totalSize: number;
}

export interface PackOptions {
  bundle: Uint8Array;
  /** "1.2.3" or "1.2.3+45" */
  version: string;
  boardId: number;
  securityCounter: number;
  /** 32-byte Ed25519 private seed of the firmware signing key. */
  seed: Uint8Array;
  /** Defaults to noble (portable); Node callers may pass nodeSign. */
  sign?: Signer;
  /** The seed's public key (its hash is in the image); defaults to noble, Node callers may pass nodePublicKeyOf. */
  publicKeyOf?: (seed: Uint8Array) => Uint8Array;
  flags?: number;
  /** false: no manifest signature, an image of the format before 4 Dec 2026 (tests of old images). */
  manifest?: boolean;
}

const U8 = 0xff;
const U16 = 0xffff;
const U32 = 0xffffffff;

export function parseVersion(text: string): Version | { error: string } {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,5})(?:\+(\d{1,10}))?$/.exec(text);
  if (!m) return { error: `version '${text}' is not major.minor.patch[+build]` };
  const v = { major: +m[1], minor: +m[2], patch: +m[3], build: m[4] === undefined ? 0 : +m[4] };
  if (v.major > U8 || v.minor > U8 || v.patch > U16 || v.build > U32)
    return { error: `version '${text}' out of range` };
  return v;
}

export function versionText(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}` + (v.build ? `+${v.build}` : '');
}

/** Negative, zero or positive like a sort comparator (build number included). */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || a.build - b.build;
}

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= U32;
}

/** Builds and signs an image. Throws RangeError on bad options (a build error, not device input). */
export function packImage(o: PackOptions): Uint8Array {
  const v = parseVersion(o.version);
  if ('error' in v) throw new RangeError(v.error);
  if (!isU32(o.boardId)) throw new RangeError('boardId must be a 32-bit unsigned integer');
  if (!isU32(o.securityCounter)) throw new RangeError('securityCounter must be a 32-bit unsigned integer');
  if (o.seed.length !== 32) throw new RangeError('seed must be 32 bytes');
  const flags = o.flags ?? 0;
  const withManifest = o.manifest !== false;
  const tlvSize = TLV_INFO_SIZE + (4 + 32) + (4 + 32) + (4 + 64) + (withManifest ? 4 + 64 : 0);
  const total = HEADER_SIZE + o.bundle.length + tlvSize;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, IMAGE_MAGIC, true);
  dv.setUint16(4, HEADER_SIZE, true);
  dv.setUint16(6, flags, true);
  dv.setUint32(8, o.bundle.length, true);
  dv.setUint8(12, v.major);
  dv.setUint8(13, v.minor);
  dv.setUint16(14, v.patch, true);
  dv.setUint32(16, v.build, true);
  dv.setUint32(20, o.boardId, true);
  dv.setUint32(24, o.securityCounter, true);
  dv.setUint32(28, 0, true); // reserved
  out.set(o.bundle, HEADER_SIZE);
  const signedLength = HEADER_SIZE + o.bundle.length;
  const hash = sha256(out.subarray(0, signedLength));
  const sig = (o.sign ?? nobleSign)(hash, o.seed);
  let p = signedLength;
  dv.setUint16(p, TLV_INFO_MAGIC, true);
  dv.setUint16(p + 2, tlvSize, true);
  p += TLV_INFO_SIZE;
  const put = (type: number, value: Uint8Array) => {
    dv.setUint16(p, type, true);
    dv.setUint16(p + 2, value.length, true);
    out.set(value, p + 4);
    p += 4 + value.length;
  };
  put(TLV_KEYHASH, sha256((o.publicKeyOf ?? publicKeyOf)(o.seed)));
  put(TLV_SHA256, hash);
  put(TLV_ED25519, sig);
  if (withManifest)
    put(TLV_MANIFEST_ED25519, (o.sign ?? nobleSign)(manifestMessage(out.subarray(0, HEADER_SIZE), hash), o.seed));
  return out;
}

/**
 * What the manifest signature covers: the ASCII context `SAPHIR image manifest v1`, 0x00, the 32 header
 * bytes, the 32-byte SHA-256 of header + bundle. Its own context, so it can never be taken for the
 * signature of an image hash (32 bytes alone) nor of anything else the key signs.
 */
export function manifestMessage(header: Uint8Array, hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(MANIFEST_CONTEXT.length + 1 + HEADER_SIZE + 32);
  for (let i = 0; i < MANIFEST_CONTEXT.length; i++) out[i] = MANIFEST_CONTEXT.charCodeAt(i);
  out[MANIFEST_CONTEXT.length] = 0;
  out.set(header.subarray(0, HEADER_SIZE), MANIFEST_CONTEXT.length + 1);
  out.set(hash.subarray(0, 32), MANIFEST_CONTEXT.length + 1 + HEADER_SIZE);
  return out;
}

/**
 * The manifest check (what BEGIN does, and `saphir flash` before sending): `absent` for an image of the
 * old format, `invalid` when the signature does not verify with `publicKey` for this header and hash.
 */
export function manifestStatus(
  image: ParsedImage,
  publicKey: Uint8Array,
  verify: Verifier = nobleVerify,
): 'valid' | 'absent' | 'invalid' {
  if (!image.manifestSignature) return 'absent';
  return verify(image.manifestSignature, manifestMessage(image.headerBytes, image.hash), publicKey)
    ? 'valid'
    : 'invalid';
}

/** Reads only the header; for a slot whose TLV area may be missing. */
export function parseHeader(bytes: Uint8Array): ImageHeader | { error: string } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The fields a short file does hold are judged before its length: a wrong header size is said as such.
  const magic = bytes.length >= 4 ? dv.getUint32(0, true) : IMAGE_MAGIC;
  if (magic !== IMAGE_MAGIC)
    return { error: `bad magic 0x${magic.toString(16).padStart(8, '0')}: not a firmware image` };
  const headerSize = bytes.length >= 6 ? dv.getUint16(4, true) : HEADER_SIZE;
  if (headerSize !== HEADER_SIZE) return { error: `unsupported header size ${headerSize}` };
  if (bytes.length < HEADER_SIZE)
    return { error: `truncated: ${bytes.length} bytes, the header alone is ${HEADER_SIZE}` };
  const flags = dv.getUint16(6, true);
  if ((flags & ~KNOWN_FLAGS) !== 0) return { error: `unknown flags 0x${flags.toString(16)}` };
  return {
    magic,
    headerSize,
    flags,
    imageSize: dv.getUint32(8, true),
    version: {
      major: dv.getUint8(12),
      minor: dv.getUint8(13),
      patch: dv.getUint16(14, true),
      build: dv.getUint32(16, true),
    },
    boardId: dv.getUint32(20, true),
    securityCounter: dv.getUint32(24, true),
  };
}

/**
 * Parses an image. With `exact` (the default) the input must be exactly the image; without, trailing
 * bytes (an erased slot's 0xFF) are ignored. Never throws.
 */
export function parseImage(bytes: Uint8Array, opts: { exact?: boolean } = {}): ParsedImage | { error: string } {
  const h = parseHeader(bytes);
  if ('error' in h) return h;
  const signedLength = HEADER_SIZE + h.imageSize;
  if (bytes.length < signedLength + TLV_INFO_SIZE) {
    return { error: `truncated: ${bytes.length} bytes, header says the bundle alone ends at ${signedLength}` };
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint16(signedLength, true) !== TLV_INFO_MAGIC) return { error: 'corrupted: no TLV area after the bundle' };
  const tlvSize = dv.getUint16(signedLength + 2, true);
  const totalSize = signedLength + tlvSize;
  if (tlvSize < TLV_INFO_SIZE) return { error: `corrupted: TLV area size ${tlvSize}` };
  if (bytes.length < totalSize) return { error: `truncated: ${bytes.length} bytes of ${totalSize}` };
  if (opts.exact !== false && bytes.length !== totalSize) {
    return { error: `${bytes.length - totalSize} unexpected bytes after the image` };
  }
  let hash: Uint8Array | undefined;
  let signature: Uint8Array | undefined;
  let keyHash: Uint8Array | undefined;
  let manifestSignature: Uint8Array | undefined;
  let p = signedLength + TLV_INFO_SIZE;
  while (p < totalSize) {
    if (p + 4 > totalSize) return { error: 'corrupted: TLV record cut' };
    const type = dv.getUint16(p, true);
    const len = dv.getUint16(p + 2, true);
    if (p + 4 + len > totalSize) return { error: 'corrupted: TLV record overruns the area' };
    const value = bytes.subarray(p + 4, p + 4 + len);
    if (type === TLV_SHA256) {
      if (len !== 32) return { error: 'corrupted: SHA-256 record is not 32 bytes' };
      hash = value;
    } else if (type === TLV_ED25519) {
      if (len !== 64) return { error: 'corrupted: Ed25519 record is not 64 bytes' };
      signature = value;
    } else if (type === TLV_KEYHASH) {
      if (len !== 32) return { error: 'corrupted: key hash record is not 32 bytes' };
      keyHash = value;
    } else if (type === TLV_MANIFEST_ED25519) {
      if (len !== 64) return { error: 'corrupted: manifest signature record is not 64 bytes' };
      manifestSignature = value;
    }
    p += 4 + len;
  }
  if (!hash) return { error: 'corrupted: no SHA-256 record' };
  if (!signature) return { error: 'unsigned: no Ed25519 record' };
  return {
    header: h,
    versionText: versionText(h.version),
    bundle: bytes.subarray(HEADER_SIZE, signedLength),
    hash,
    signature,
    keyHash,
    manifestSignature,
    headerBytes: bytes.subarray(0, HEADER_SIZE),
    signedLength,
    totalSize,
  };
}

export type VerifyReason = 'malformed' | 'hash' | 'signature';

export type VerifyResult =
  | { ok: true; image: ParsedImage; hashHex: string }
  | { ok: false; reason: VerifyReason; detail: string; image?: ParsedImage };

/**
 * Parses, recomputes the SHA-256 of header + bundle and checks the signature with `publicKey` (and the
 * manifest's, when the image has one).
 * Board id and security counter are policy: the bootloader checks them. Never throws.
 */
export function verifyImage(
  bytes: Uint8Array,
  publicKey: Uint8Array,
  opts: { verify?: Verifier; exact?: boolean } = {},
): VerifyResult {
  const image = parseImage(bytes, { exact: opts.exact });
  if ('error' in image) return { ok: false, reason: 'malformed', detail: image.error };
  const actual = sha256(bytes.subarray(0, image.signedLength));
  if (!equalBytes(actual, image.hash)) {
    return { ok: false, reason: 'hash', detail: `SHA-256 mismatch: computed ${toHex(actual)}`, image };
  }
  if (image.keyHash && !equalBytes(image.keyHash, sha256(publicKey))) {
    return { ok: false, reason: 'signature', detail: 'signed by another key than the firmware key', image };
  }
  if (!(opts.verify ?? nobleVerify)(image.signature, image.hash, publicKey)) {
    return { ok: false, reason: 'signature', detail: 'Ed25519 signature does not verify with the firmware key', image };
  }
  // A manifest signature, when there is one, must hold too: no byte of an image is left unchecked.
  if (manifestStatus(image, publicKey, opts.verify) === 'invalid') {
    return { ok: false, reason: 'signature', detail: 'the manifest signature does not verify', image };
  }
  return { ok: true, image, hashHex: toHex(image.hash) };
}
