// Targets printed beside the figures by bench/run.ts: [comparison, value]. Figures not listed have none.
import { BUDGET_BUNDLE, BUDGET_CORE } from '../tools/build.ts';

export const TARGETS: Record<string, ['<=' | '>=', number]> = {
  qjs_verify_ratio_vs_noble: ['<=', 0.3],
  qjs_scan_to_verdict_ms_median: ['<=', 4],
  // every state within 400 KiB: the device class's 512 less 112 KiB kept free (tools/build.ts HEAP_TARGET)
  qjs_heap_peak_kib: ['<=', 400],
  qjs_heap_full_ledger_kib: ['<=', 400],
  qjs_heap_camera_kib: ['<=', 400],
  // a fleet device (a registry configured, a notice on flash): its link and notice code compiled
  qjs_heap_registry_kib: ['<=', 400],
  qjs_heap_registry_full_ledger_kib: ['<=', 400],
  // inside the device's 512 KiB (the build enforces BUDGET_HEAP_CAMERA_FULL_LEDGER)
  qjs_heap_camera_full_ledger_kib: ['<=', 512],
  qjs_heap_fleet_camera_full_ledger_kib: ['<=', 512],
  // the same cases on XS (bench/xs.bench.ts: its snapshot less an empty machine's), against the same budget
  xs_heap_full_ledger_kib: ['<=', 400],
  xs_heap_text_path_kib: ['<=', 400],
  qjs_camera_vga_ms_median: ['<=', 60],
  // the build's budgets (tools/build.ts BUDGET_BUNDLE, BUDGET_CORE, enforced by npm run build), not copies
  fw_bundle_kib: ['<=', BUDGET_BUNDLE / 1024],
  fw_core_kib: ['<=', BUDGET_CORE / 1024],
  counter_scan_to_verdict_journal_ratio: ['<=', 1.1],
  gen_full_block_s: ['<=', 55],
  audit_full_block_s: ['<=', 140],
  gen_full_block_s_extrapolated: ['<=', 55],
  audit_full_block_s_extrapolated: ['<=', 140],
  // Issue #14's ratio is a full block's against the node:crypto path: the extrapolated figures (start-up
  // counted once, as in a real block). The tenth-of-a-block ratios (gen_ratio_vs_node_crypto…) weigh
  // the fixed start-up ten times as much and are printed without a target.
  gen_full_block_ratio_vs_node_crypto: ['<=', 0.6],
  audit_full_block_ratio_vs_node_crypto: ['<=', 0.6],
  gen_full_block_ratio_vs_node_crypto_cpu: ['<=', 0.6],
  audit_full_block_ratio_vs_node_crypto_cpu: ['<=', 0.6],
  camera_first_frame_rate: ['>=', 0.97],
  qjs_camera_640x480_ms_cold_ratio_vs_stock: ['<=', 0.065],
  qr_corpus_decoded: ['>=', 229],
  qr_corpus_wrong_text: ['<=', 0],
  qr_corpus_firmware_bytes_differ_from_host: ['<=', 0],
  qr_corpus_ms_per_image: ['<=', 26],
  explore_schedules_per_s: ['>=', 20],
  // Issue #30 item 4: what an unauthenticated request costs the server, and a genuine claim under the flood.
  registry_unauth_cpu_ms_pglite: ['<=', 1],
  registry_unauth_cpu_ms_postgres: ['<=', 1],
  // The same for a well-formed signature by another key (its head alone checked, the 60 KB body unread),
  // and for a body whose head is not first (any form but the device's: refused 400 unread).
  registry_unauth_other_key_cpu_ms_pglite: ['<=', 1],
  registry_unauth_other_key_cpu_ms_postgres: ['<=', 1],
  registry_unauth_no_head_cpu_ms_pglite: ['<=', 1],
  registry_unauth_no_head_cpu_ms_postgres: ['<=', 1],
  registry_flood_claim_p99_ms_pglite: ['<=', 1000],
  registry_flood_claim_p99_ms_postgres: ['<=', 1000],
  explore_violations: ['<=', 0],
  fleet_violations: ['<=', 0],
  flash_efficiency_115200: ['>=', 0.95],
  flash_efficiency_921600: ['>=', 0.9],
  update_ram_kib: ['<=', 32],
  web_page_kib: ['<=', 2048],
  cli_start_ratio_vs_node_version: ['<=', 2.0],
  cli_start_ratio_vs_node_check: ['<=', 2.5],
};

/** "≤ 0.3 ok" / "≥ 229 MISSED", or '' when the figure has no target. */
export function targetText(name: string, value: number): string {
  const t = TARGETS[name];
  if (!t) return '';
  const ok = t[0] === '<=' ? value <= t[1] : value >= t[1];
  return `${t[0] === '<=' ? '≤' : '≥'} ${t[1]} ${ok ? 'ok' : 'MISSED'}`;
}
