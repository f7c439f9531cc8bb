// The paid-ticket ledger: see ledger.ts and docs/ledger.md.
export {
  Ledger,
  LedgerError,
  LedgerFull,
  type LedgerErrorCode,
  type LedgerOptions,
  type LedgerStats,
  type PaymentInput,
} from './ledger.ts';
export { type Payment, type TicketKey, SLOT_SIZE, HEADER_SIZE, DEVICE_ID_MAX } from './format.ts';
export { keepWhileClaimable } from './retention.ts';
export {
  MirroredLedger,
  blockView,
  markView,
  mirroredEntries,
  readLedgerPartition,
  compactMirrored,
} from './mirror.ts';
export {
  readMark,
  readLastTwo,
  restoreMark,
  writeMark,
  MARK_BLOCKS,
  MARK_RTC,
  MARK_KEYPAD,
  MARK_SERVICE,
  MARK_Z,
} from './time-mark.ts';
