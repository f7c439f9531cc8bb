// src/bytes.ts, the one copy of byte-order reads and writes, against DataView (the platform's own).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { getU16BE, getU16LE, getU32BE, getU32LE, putU16BE, putU16LE, putU32BE, putU32LE } from '../../src/bytes.ts';

test('reads and writes agree with DataView in both byte orders, at any offset', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 4, maxLength: 12 }),
      fc.nat(),
      fc.nat({ max: 0xffffffff }),
      (bytes, at, v) => {
        const o = at % (bytes.length - 3);
        const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        if (getU16BE(bytes, o) !== dv.getUint16(o, false) || getU16LE(bytes, o) !== dv.getUint16(o, true)) return false;
        if (getU32BE(bytes, o) !== dv.getUint32(o, false) || getU32LE(bytes, o) !== dv.getUint32(o, true)) return false;
        const cases: [(b: Uint8Array, o: number, v: number) => void, (d: DataView) => number, number][] = [
          [putU16BE, (d) => d.getUint16(o, false), v & 0xffff],
          [putU16LE, (d) => d.getUint16(o, true), v & 0xffff],
          [putU32BE, (d) => d.getUint32(o, false), v],
          [putU32LE, (d) => d.getUint32(o, true), v],
        ];
        for (const [put, get, want] of cases) {
          const b = bytes.slice();
          put(b, o, want);
          if (get(new DataView(b.buffer)) !== want) return false;
          // nothing outside the field changes
          const width = put === putU16BE || put === putU16LE ? 2 : 4;
          for (let i = 0; i < b.length; i++) if ((i < o || i >= o + width) && b[i] !== bytes[i]) return false;
        }
        return true;
      },
    ),
    { numRuns: 500 },
  );
  assert.is(getU32BE(new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0), 0xffffffff, 'unsigned');
  assert.is(getU32LE(new Uint8Array([0, 0, 0, 0x80]), 0), 0x80000000, 'unsigned');
});

test.run();
