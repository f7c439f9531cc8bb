// The head of an operator notice's record on flash (src/notice.ts writes and reads the records whole):
// apart, so that a device tells whether its partition holds a notice without compiling the notice code
// (firmware/notices.ts). Portable.
import type { Flash } from './hal.ts';

export const NOTICE_MAGIC = 'SPHN';

/** Whether a sector of the partition starts as a notice record (magic, format 1); not that it is whole. */
export function noticeStored(flash: Flash): boolean {
  for (let s = 0; s < 2 && (s + 1) * flash.blockLength <= flash.size; s++) {
    const h = flash.read(s * flash.blockLength, 5);
    let head = h[4] === 1;
    for (let i = 0; i < 4; i++) if (h[i] !== NOTICE_MAGIC.charCodeAt(i)) head = false;
    if (head) return true;
  }
  return false;
}
