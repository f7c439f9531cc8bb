// The fleet explorer's own reader of the operator-notice partition, written from docs/operations.md
// (*Flash*: two 4 KiB sectors, each one record "SPHN" · format 1 · version u32 · length u32 · the signed
// notice's text · CRC-32 of all before), not from src/notice.ts. Only reads; never throws on damaged bytes.
import { LAYOUT } from '../../rom/layout.ts';
import { crc32 } from './ledger-reader.ts';

export interface NoticeRecord {
  sector: number;
  /** The version in the record's header. */
  version: number;
  /** The signed notice's text (JSON). */
  text: string;
}

const HEAD = 13;
const u32 = (b: Uint8Array, o: number) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;

/** The whole records of the partition (a torn or erased sector holds none). */
export function readNoticeRecords(peek: (offset: number, length: number) => Uint8Array): NoticeRecord[] {
  const sector = LAYOUT.notice.size / 2;
  const out: NoticeRecord[] = [];
  for (let s = 0; s < 2; s++) {
    const at = LAYOUT.notice.offset + s * sector;
    const h = peek(at, HEAD);
    if (String.fromCharCode(h[0], h[1], h[2], h[3]) !== 'SPHN' || h[4] !== 1) continue;
    const n = u32(h, 9);
    if (HEAD + n + 4 > sector) continue;
    const b = peek(at, HEAD + n + 4);
    if (crc32(b, 0, HEAD + n) !== u32(b, HEAD + n)) continue;
    let text = '';
    for (let i = HEAD; i < HEAD + n; i++) text += String.fromCharCode(b[i]);
    out.push({ sector: s, version: u32(h, 5), text });
  }
  return out;
}
