// The ledger and the claim deadline bundled as the firmware bundles them (esbuild, ES2020, neutral
// platform) and run in QuickJS under a memory limit: no Node API slipped in, same behaviour.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from 'esbuild';
import { getQuickJS } from 'quickjs-emscripten';
import { ROOT } from '../helpers.ts';
import { FIRMWARE_ESBUILD } from '../../tools/build.ts';
import { ramFlashJs } from './ram-flash.ts';

const entry = `
import { Ledger, LedgerFull, LedgerError, keepWhileClaimable } from './src/ledger/index.ts';
import { claimDeadline, isClaimable, easterSunday } from './src/claim.ts';
${ramFlashJs(8 * 4096)}
const pay = (i) => ({ emission: 1 + (i % 2), block: 3, number: i, prizeEur: 15, paidAtMs: 1780000000000 + i });
const out = {};
let l = Ledger.open(flash, { deviceId: 'QJS-1' });
out.capacity = l.capacity;
let n = 0;
try { for (;;) { l.record(pay(n)); n++; } } catch (e) { out.full = e instanceof LedgerFull && e instanceof LedgerError && e.code === 'FULL'; }
out.recorded = n;
try { l.record(pay(0)); } catch (e) { out.duplicate = e.code; }
try { l.record({ emission: -1 }); } catch (e) { out.invalid = e.code; }
l = Ledger.open(flash);
out.reopened = l.count;
out.found = JSON.stringify(l.find({ emission: 2, block: 3, number: 7 }));
out.dropped = l.compact(keepWhileClaimable({ 1: '2026-01-01' }, Date.UTC(2026, 1, 1)));
out.after = Ledger.open(flash).count;
out.deadline = claimDeadline('2026-04-24');
out.claimable = [isClaimable('2026-01-01', Date.UTC(2026, 0, 31, 22, 59, 59)), isClaimable('2026-01-01', Date.UTC(2026, 0, 31, 23))];
out.easter = easterSunday(2038);
globalThis.result = JSON.stringify(out);
`;

test('the ledger and the claim deadline run in QuickJS', async () => {
  const b = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'js' },
    ...FIRMWARE_ESBUILD,
    write: false,
  });
  const QuickJS = await getQuickJS();
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(1024 * 1024);
  rt.setMaxStackSize(256 * 1024);
  const vm = rt.newContext();
  try {
    const r = vm.evalCode(`${b.outputFiles[0].text};result`);
    if (r.error) {
      const e = vm.dump(r.error);
      r.error.dispose();
      assert.unreachable(JSON.stringify(e));
      return;
    }
    const out = JSON.parse(vm.dump(r.value) as string);
    r.value.dispose();
    assert.equal(out, {
      capacity: 6 * 102,
      full: true,
      recorded: 612,
      duplicate: 'DUPLICATE',
      invalid: 'INVALID',
      reopened: 612,
      found: JSON.stringify({
        emission: 2,
        block: 3,
        number: 7,
        prizeEur: 15,
        paidAtMs: 1780000000007,
        deviceId: 'QJS-1',
      }),
      dropped: 306,
      after: 306,
      deadline: '2026-05-26',
      claimable: [true, false],
      easter: '2038-04-25',
    });
  } finally {
    vm.dispose();
    rt.dispose();
  }
});

test.run();
