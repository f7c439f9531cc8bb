// What the parts compiled apart (tools/build.ts `LAZY_PARTS`: the registry link, the reports, the HID decoders, printing, the
// operator notice) take from the core
// instead of carrying copies: the build resolves their imports of these modules to this object, handed
// to a part when it is compiled. A part importing from one of these modules a name not listed here does
// not build.
import { deviceVerify } from './verify.ts';
import { sha512 } from './sha512.ts';
import { fromHex, toHex } from '../src/hex.ts';
import { utf8Encode } from '../src/utf8.ts';
import { crc32 } from '../src/crc32.ts';
import { TEXT, checkingScreen, errorScreen, payLaterScreen, ticketLine } from './screens.ts';
import { messageOf } from './app/base.ts';
import { VERSION } from './build-info.ts';
import { formatEur } from '../src/i18n.ts';
import { frenchDate, frenchDateTime } from '../src/paris-time.ts';
import { REASONS } from '../src/sph1/check.ts';
import { DEFAULT_MAX_LENGTH, EventQueue } from '../src/input/event.ts';
import { unframe } from '../src/input/transport.ts';
import { BASE45_ALPHABET } from '../src/sph1/base45.ts';
import { NOTICE_MAGIC } from '../src/notice-head.ts';
import { asciiBytes, asciiText } from '../src/config.ts';
import { getU32BE, isErased, putU32BE } from '../src/bytes.ts';
import { isDate } from '../src/claim.ts';
import { isDepartment } from '../src/config-schema.ts';

export const KIT = {
  deviceVerify,
  sha512,
  fromHex,
  toHex,
  utf8Encode,
  crc32,
  isErased,
  TEXT,
  checkingScreen,
  errorScreen,
  payLaterScreen,
  ticketLine,
  messageOf,
  VERSION,
  formatEur,
  frenchDate,
  frenchDateTime,
  REASONS,
  DEFAULT_MAX_LENGTH,
  EventQueue,
  unframe,
  BASE45_ALPHABET,
  NOTICE_MAGIC,
  asciiBytes,
  asciiText,
  getU32BE,
  putU32BE,
  isDate,
  isDepartment,
};
