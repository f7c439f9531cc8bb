// The VM bridge (hw-sim/qjs-host.ts) passes values the same way on its fast paths (finite numbers in,
// numbers, booleans, null and Uint8Arrays out, no JSON) as on its JSON path, in both engines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { QjsDevice } from '../../hw-sim/qjs-host.ts';
import { XsDevice } from '../../hw-sim/xs-host.ts';
import { requireTool } from '../helpers.ts';
import { V8Device, rememberedVerify } from '../../hw-sim/v8-host.ts';
import type { SimVariant } from '../../hw-sim/sim.ts';
import type { Device } from '../../src/hal.ts';

let backing = new Uint8Array(0);
function probeDevice(seen: unknown[][]): Device {
  backing = new Uint8Array([9, 2, 3, 4]);
  class Probe {
    num() {
      return 42.5;
    }
    yes() {
      return true;
    }
    no() {
      return false;
    }
    nothing() {
      return null;
    }
    bytes() {
      return backing.subarray(1, 3);
    }
    whole() {
      return new Uint8Array([7, 8]);
    }
    buffer() {
      return new Uint8Array([5, 6]).buffer;
    }
    text() {
      return 'é"x';
    }
    echo(...args: unknown[]) {
      seen.push(args);
      return args.length;
    }
  }
  return { Probe, identity: {} } as unknown as Device;
}

/** Each engine the simulator can run the firmware on: the v8 host must hand over the same values. */
const ENGINES: SimVariant[] = ['quickjs', 'quickjs-ng', 'v8', 'xs'];
/** XS only where @agoric/xsnap is built: skipped with the install command otherwise (a failure under SAPHIR_TEST_STRICT=1). */
const withXs = requireTool('xsnap');
const on = (variant: SimVariant) => (variant === 'xs' ? withXs : test);
const start = (bundle: string, device: Device, variant: SimVariant) =>
  variant === 'v8'
    ? V8Device.start({ bundle, device })
    : variant === 'xs'
      ? XsDevice.start({ bundle, device })
      : QjsDevice.start({ bundle, device, variant });

const SCRIPT = `
  var p = new device.Probe({});
  var held = p.whole(); held[0] = 99;
  var b = p.bytes(), w = p.whole(), ab = p.buffer();
  globalThis.out = {
    num: p.num(), yes: p.yes(), no: p.no(), nothing: p.nothing(), text: p.text(),
    bytes: [b instanceof Uint8Array, Array.prototype.slice.call(b)],
    whole: [w instanceof Uint8Array, Array.prototype.slice.call(w)],
    buffer: [ab instanceof ArrayBuffer, !(ab instanceof Uint8Array), ab.byteLength],
    counts: [p.echo(), p.echo(1), p.echo(1, 2.5), p.echo(1, 2, 3), p.echo(-0), p.echo(NaN, Infinity), p.echo(undefined), p.echo('s', 4)],
    mine: p.echo(held),
  };
  globalThis.keep = { b: b, held: held };
`;

for (const variant of ENGINES) {
  on(variant)(`${variant}: HAL values cross the bridge unchanged on its fast paths and its JSON path`, async () => {
    const seen: unknown[][] = [];
    const q = await start(SCRIPT, probeDevice(seen), variant);
    try {
      assert.equal(q.faults, []);
      const out = q.eval('globalThis.out') as Record<string, unknown>;
      assert.is(out.num, 42.5);
      assert.is(out.yes, true);
      assert.is(out.no, false);
      assert.is(out.nothing, null);
      assert.is(out.text, 'é"x');
      assert.equal(out.bytes, [true, [2, 3]], 'a view: its own bytes, a Uint8Array');
      assert.equal(out.whole, [true, [7, 8]]);
      assert.equal(out.buffer, [true, true, 2], 'an ArrayBuffer stays an ArrayBuffer');
      assert.equal(out.counts, [0, 1, 2, 3, 1, 2, 1, 2]);
      // Finite numbers pass as they are; -0, NaN and Infinity take the JSON path (0, null, null), as before.
      assert.equal(seen.slice(0, 4), [[], [1], [1, 2.5], [1, 2, 3]]);
      assert.ok(Object.is(seen[4][0], 0), '-0 arrives as 0');
      assert.equal(seen[5], [null, null]);
      assert.equal(seen[6], [undefined]);
      assert.equal(seen[7], ['s', 4]);
      // Bytes cross as copies both ways: neither side sees the other change its own.
      assert.equal([...(seen[8][0] as Uint8Array)], [99, 8]);
      (seen[8][0] as Uint8Array)[1] = 0;
      backing[1] = 0;
      assert.equal(
        q.eval('[Array.prototype.slice.call(globalThis.keep.b), Array.prototype.slice.call(globalThis.keep.held)]'),
        [
          [2, 3],
          [99, 8],
        ],
      );
    } finally {
      q.dispose();
    }
  });
}

for (const variant of ENGINES) {
  on(variant)(
    `${variant}: a steady method (a clock) is asked once per entry into the VM, again at the next`,
    async () => {
      let t = 100;
      let asked = 0;
      let tick: (() => void) | undefined;
      class Clock {
        readonly _steady = ['now'];
        now() {
          asked++;
          return t;
        }
        later() {
          asked++;
          return t;
        }
        onTick(f: () => void) {
          tick = f;
        }
      }
      const device = { Clock, identity: {} } as unknown as Device;
      const script = `
      var c = (globalThis.c = new device.Clock({}));
      var seen = (globalThis.seen = []);
      c.onTick(function () { seen.push(c.now(), c.now(), c.later()); });
    `;
      const q = await start(script, device, variant);
      try {
        assert.equal(q.eval('[globalThis.c.now(), globalThis.c.now(), globalThis.c.now()]'), [100, 100, 100]);
        assert.is(asked, 1, 'once in that entry');
        t = 250;
        assert.equal(q.eval('[globalThis.c.now(), globalThis.c.later()]'), [250, 250], 'a new entry asks again');
        assert.is(asked, 3, 'a method not named steady is asked every time');
        t = 300;
        tick!();
        t = 400;
        tick!();
        assert.equal(q.eval('globalThis.seen'), [300, 300, 300, 400, 400, 400]);
        assert.is(asked, 7);
        assert.equal(q.faults, []);
      } finally {
        q.dispose();
      }
    },
  );
}

test('v8: the host Ed25519 answers are remembered by their bytes, never by the arrays', () => {
  const asked: string[] = [];
  const base = (s: Uint8Array, m: Uint8Array, p: Uint8Array) => {
    asked.push(`${s.join()}|${m.join()}|${p.join()}`);
    return s[0] === 1;
  };
  const v = rememberedVerify(base);
  assert.is(rememberedVerify(base), v, 'one memo per verifier');
  const sig = new Uint8Array([1, 2]);
  const msg = new Uint8Array([3]);
  const key = new Uint8Array([4]);
  assert.ok(v(sig, msg, key));
  assert.ok(v(new Uint8Array([1, 2]), new Uint8Array([3]), new Uint8Array([4])), 'the same bytes');
  assert.is(asked.length, 1, 'answered from memory');
  sig[0] = 0;
  assert.not.ok(v(sig, msg, key), 'the same array, changed in place: asked again');
  // The same bytes cut differently between signature, message and key are another question.
  assert.not.ok(v(new Uint8Array([0]), new Uint8Array([3]), new Uint8Array([2, 4])));
  assert.is(asked.length, 3);
});

test.run();
