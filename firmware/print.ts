// The printing seam (as registry.ts is the link's): the firmware bundle carries receipts and ESC/POS
// packed and compiles them on the first receipt (tools/build.ts `LAZY_PARTS`); a device without a
// printer drops the packed text at boot (`dropPrint`). Unbundled (tests in Node), the modules themselves.
import * as part from './print/part.ts';

export const paymentReceipt: typeof part.paymentReceipt = part.paymentReceipt;
export const claimSlip: typeof part.claimSlip = part.claimSlip;
export const duplicate: typeof part.duplicate = part.duplicate;
export const escpos: typeof part.escpos = part.escpos;
/** No printer: the packed text is not needed. A no-op here, where nothing is packed. */
export const dropPrint = (): void => undefined;
