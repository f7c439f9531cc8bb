// A system error in the user's words: an errno code (ENOENT, EADDRINUSE, ECONNREFUSED…) on the error,
// on its cause (fetch's "fetch failed"), on the first of an AggregateError, or only as the C library's
// text in its message (node-serialport: "Error: No such file or directory, cannot open /dev/x") becomes
// the catalogue's sentence; anything else keeps its own message. Portable: it reads fields, nothing more.
import type { Messages } from './messages/index.ts';

/** The C library's texts (strerror) that some libraries give instead of a code. */
const STRERROR: [RegExp, string][] = [
  [/No such file or directory/i, 'ENOENT'],
  [/Permission denied/i, 'EACCES'],
  [/Operation not permitted/i, 'EPERM'],
  [/Is a directory/i, 'EISDIR'],
  [/Not a directory/i, 'ENOTDIR'],
  [/Device or resource busy/i, 'EBUSY'],
  [/Inappropriate ioctl for device/i, 'ENOTTY'],
  [/Input\/output error/i, 'EIO'],
  [/No such device/i, 'ENODEV'],
];

interface Fields {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  address?: unknown;
  port?: unknown;
  path?: unknown;
}

/** The errno code of `e` (or of its cause), and the address or path it concerns, if any. */
export function errnoOf(e: unknown, depth = 0): { code: string; where?: string } | undefined {
  if (typeof e !== 'object' || e === null || depth > 3) return undefined;
  const o = e as Fields;
  if (typeof o.code === 'string' && /^E[A-Z0-9_]{2,}$/.test(o.code) && !o.code.startsWith('ERR_')) {
    const where =
      typeof o.address === 'string' ? (typeof o.port === 'number' ? `${o.address}:${o.port}` : o.address) : undefined;
    return { code: o.code, where };
  }
  const inner = errnoOf(o.cause, depth + 1) ?? (Array.isArray(o.errors) ? errnoOf(o.errors[0], depth + 1) : undefined);
  if (inner) return inner;
  if (typeof o.message === 'string') for (const [re, code] of STRERROR) if (re.test(o.message)) return { code };
  return undefined;
}

/** What went wrong, said in words: a system error from the catalogue, else the error's own message. */
export function systemErrorText(e: unknown, m: Messages): string {
  const n = errnoOf(e);
  if (n) return m.os.errno(n.code, n.where);
  if (e instanceof Error) return e.message.replace(/^Error: /, '');
  return String(e);
}
