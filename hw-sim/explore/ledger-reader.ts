// The explorer's own reader of the on-flash ledger, written from docs/ledger.md (*The device's ledger
// partition*, *Format*, *Recovery*), not from src/ledger: a fault the firmware's writer and reader share
// (both wrong the same way) reads differently here. Only reads; never throws on damaged bytes.

export interface ReadPayment {
  emission: number;
  block: number;
  number: number;
  prizeEur: number;
  paidAtMs: number;
  deviceId: string;
}

/** Sectors at the start of the partition that hold the trusted-time mark, not payments. */
const MARK_SECTORS = 2;
const HEADER = 16;
const SLOT = 40;
const PAYMENT = 0xa5;
const ID_MAX = 16;
/** The index addresses at most this many slots; sectors of a log beyond them are unused. */
const MAX_SLOTS = 32_766;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 as zlib computes it. */
export function crc32(b: Uint8Array, from: number, to: number, first?: number): number {
  let c = 0xffffffff;
  for (let i = from; i < to; i++)
    c = CRC_TABLE[(c ^ (i === from && first !== undefined ? first : b[i])) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const u16 = (b: Uint8Array, o: number) => (b[o] << 8) | b[o + 1];
const u32 = (b: Uint8Array, o: number) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;

export interface LogRead {
  payments: Map<string, ReadPayment>;
  /** Sectors with a valid header. */
  headers: number;
  /** Committed slots that fail their CRC (corrupted). */
  damaged: number;
  /** Slots never committed (type byte erased, the rest not): a write cut before its commit. */
  torn: number;
}

/** One log: every payment slot whose CRC holds, in any sector (an orphan's count too). */
export function readLog(bytes: Uint8Array, first: number, sectors: number, sectorSize: number): LogRead {
  const slots = Math.floor((sectorSize - HEADER) / SLOT);
  const usable = Math.min(sectors, Math.floor(MAX_SLOTS / slots));
  const out: LogRead = { payments: new Map(), headers: 0, damaged: 0, torn: 0 };
  for (let s = 0; s < usable; s++) {
    const base = (first + s) * sectorSize;
    const magic = u32(bytes, base) === 0x53504c47 && bytes[base + 4] === 1 && bytes[base + 5] === SLOT;
    if (magic && u32(bytes, base + 12) === crc32(bytes, base, base + 12)) out.headers++;
    for (let k = 0; k < slots; k++) {
      const o = base + HEADER + k * SLOT;
      // The type byte is the commit: erased, the slot was never committed (torn: no payment, no damage).
      let restErased = true;
      for (let i = 1; i < SLOT && restErased; i++) restErased = bytes[o + i] === 0xff;
      if (bytes[o] === 0xff) {
        if (!restErased) out.torn++;
        continue;
      }
      const idLen = bytes[o + 1];
      // Committed: whatever of the type byte reached flash, the CRC is over 0xA5 and bytes 1–35.
      if (idLen > ID_MAX || u32(bytes, o + 36) !== crc32(bytes, o, o + 36, PAYMENT)) {
        if (restErased) out.torn++;
        else out.damaged++;
        continue;
      }
      let deviceId = '';
      for (let i = 0; i < idLen; i++) deviceId += String.fromCharCode(bytes[o + 20 + i]);
      const p: ReadPayment = {
        emission: u16(bytes, o + 2),
        block: u16(bytes, o + 4),
        number: u32(bytes, o + 6),
        prizeEur: u32(bytes, o + 10),
        paidAtMs: u16(bytes, o + 14) * 0x1_0000_0000 + u32(bytes, o + 16),
        deviceId,
      };
      // A ticket twice in one log is a compaction's copy (the same payment): one is enough.
      out.payments.set(`${p.emission}-${p.block}-${p.number}`, p);
    }
  }
  return out;
}

export interface PartitionRead {
  /** Every payment either log holds, each once (log A's copy when both hold it). */
  payments: ReadPayment[];
  logs: [LogRead, LogRead];
  /** Tickets whose copies in the two logs differ in a field (both CRCs valid): a writer's defect. */
  disagree: string[];
}

/** The ledger partition's bytes (mark sectors, log A, log B) read as an auditor would. */
export function readPartition(bytes: Uint8Array, sectorSize = 4096): PartitionRead {
  const n = logSectors(bytes.length, sectorSize);
  return combineLogs(readLog(bytes, MARK_SECTORS, n, sectorSize), readLog(bytes, MARK_SECTORS + n, n, sectorSize));
}

/** Sectors of each log in a partition of `length` bytes (after the mark sectors); log A starts at MARK_SECTORS. */
export function logSectors(length: number, sectorSize = 4096): number {
  const n = Math.floor((Math.floor(length / sectorSize) - MARK_SECTORS) / 2);
  if (n < 3) throw new RangeError(`ledger partition of ${length} bytes: too small for two logs`);
  return n;
}

export { MARK_SECTORS };

/** The two logs' union (log A's copy when both hold a ticket), and the tickets whose copies differ. */
export function combineLogs(a: LogRead, b: LogRead): PartitionRead {
  const all = new Map(b.payments);
  const disagree: string[] = [];
  for (const [k, p] of a.payments) {
    const q = all.get(k);
    if (q && JSON.stringify(q) !== JSON.stringify(p)) disagree.push(k);
    all.set(k, p);
  }
  return { payments: [...all.values()], logs: [a, b], disagree };
}
