// The operator notice's seam (as registry.ts is the link's): the firmware bundle carries the notice code
// packed and compiles it for each call, at boot for a notice on flash and when the registry brings one,
// freed after it (tools/build.ts `LAZY_PARTS`, `transient`); a device with no notice and no registry drops the packed text at boot (`dropNotice`).
// Unbundled (tests in Node), the module itself.
import * as part from './notice/part.ts';

export const applyNotice: typeof part.applyNotice = part.applyNotice;
export const loadNotice: typeof part.loadNotice = part.loadNotice;
export const noticeHolidays: typeof part.noticeHolidays = part.noticeHolidays;
export const noticeRefusal: typeof part.noticeRefusal = part.noticeRefusal;
export const parseSignedNotice: typeof part.parseSignedNotice = part.parseSignedNotice;
export const storeNotice: typeof part.storeNotice = part.storeNotice;
/** Neither a notice nor a registry: the packed text is not needed. A no-op here, where nothing is packed. */
export const dropNotice = (): void => undefined;
