// The device log as codes (issue #34): the firmware writes a line as LOG_SEP, its code and each argument
// after a LOG_SEP; the host expands it with the catalogue of src/messages/log.ts when it reads the log
// (the simulator's Log, hw-sim/device.ts). Only these numbers are in the firmware, not the words. A code
// keeps its meaning for good: a new line gets a new code at the end.
export const LOG_SEP = '\x1f';

export const LOG_BOOT = 0;
export const LOG_JOURNAL = 1;
export const LOG_CLOCK_NOT_BELIEVED = 2;
export const LOG_READY = 3;
export const LOG_IMAGE_CONFIRMED = 4;
export const LOG_NO_TIME_NOT_PAYABLE = 5;
export const LOG_DAMAGED_NOT_PAYABLE = 6;
export const LOG_PAYMENT_FAILED = 7;
export const LOG_PAID = 8;
export const LOG_PAID_OFFLINE = 9;
export const LOG_ERROR_AFTER_PAYMENT = 10;
export const LOG_ERROR = 11;
export const LOG_CLOCK_AHEAD = 12;
export const LOG_CLOCK_CONFIRMED = 13;
export const LOG_CLOCK_REFUSED = 14;
export const LOG_EXPIRED_BEFORE_OK = 15;
export const LOG_REPRINT_DONE = 16;
export const LOG_REPRINT_FAILED = 17;
export const LOG_NOTICE = 18;
export const LOG_NOTICE_REFUSED = 19;
export const LOG_NOTICE_APPLIED = 20;
export const LOG_REGISTRY_NONE = 21;
export const LOG_REGISTRY_NO_OUTBOX = 22;
export const LOG_REGISTRY_KEY = 23;
export const LOG_REGISTRY_URL = 24;
export const LOG_REGISTRY_PAID_BY = 25;
export const LOG_REGISTRY_REFUSED = 26;
export const LOG_REGISTRY_NO_ANSWER = 27;
export const LOG_OUTBOX = 28;
export const LOG_OUTBOX_DROPPED = 29;
export const LOG_SYNC_NOT_SENT = 30;
export const LOG_SYNC_CONFLICT = 31;
export const LOG_SYNC_REFUSED = 32;
export const LOG_SYNC_SENT = 33;
export const LOG_UPDATE_FROM = 34;
export const LOG_UPDATE_REFUSED = 35;
export const LOG_UPDATE_RESTART = 36;
export const LOG_UPDATE_INSTALLED = 37;
export const LOG_UPDATE_FAILED = 38;
export const LOG_UPDATE_OVER = 39;
export const LOG_HALTED = 40;
export const LOG_REPORT = 41;
export const LOG_PRINTER = 42;
export const LOG_LEDGER_REPAIRED = 43;
export const LOG_LEDGER_CLOCK = 44;
export const LOG_LEDGER_COMPACTED = 45;
/** How many codes there are (the catalogue has a text for each, in each language). */
export const LOG_CODES = 46;
