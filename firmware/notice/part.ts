// The operator notice's code (docs/operations.md: parsed, checked, verified, stored, applied): compiled
// apart (tools/build.ts `LAZY_PARTS`, seam firmware/notices.ts), at boot when the partition holds a
// notice, or when the registry brings one; a device with neither drops it at boot.
export {
  applyNotice,
  loadNotice,
  noticeHolidays,
  noticeRefusal,
  parseSignedNotice,
  storeNotice,
} from '../../src/notice.ts';
