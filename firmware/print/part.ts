// What a device prints (receipts, claim slips, duplicates, in ESC/POS): compiled apart, on the first
// receipt of a device with a printer (tools/build.ts `LAZY_PARTS`, seam firmware/print.ts); a device
// without one drops it at boot. Its date, money and ticket helpers come from the core (firmware/kit.ts).
export { paymentReceipt, claimSlip, duplicate } from '../receipt.ts';
export { escpos } from '../../src/print/escpos.ts';
