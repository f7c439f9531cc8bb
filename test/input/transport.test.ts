// docs/sph1.md: what a scanner adds around a code (an AIM identifier such as `]Q1`, a CR, LF or Tab at
// the end) is transport, removed by src/input/ — by one function, unframe, for every scanner type — so a
// genuine ticket gets its genuine verdict whatever the scanner is set to send.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unframe } from '../../src/input/transport.ts';
import { HidPosDecoder } from '../../src/input/hid-pos.ts';
import { KeyboardWedgeDecoder } from '../../src/input/keyboard.ts';
import { SerialDecoder } from '../../src/input/serial.ts';
import { checkCode } from '../../src/sph1/check.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import { nobleVerify } from '../../src/crypto/ed25519.ts';
import { ticketCode } from '../../hw-sim/tickets.ts';
import { posReports } from '../../hw-sim/scanners/hid-pos.ts';
import { boot, chipWith, flat, ticket } from '../firmware/harness.ts';
import { ALPHABET, codes, run } from './helpers.ts';
import { altNumpad, frKey, report, typeText, usKey } from './keymap.ts';

// A genuine 150 € winner: 164 characters, so HID POS sends it over three reports.
const CODE = ticketCode({ emission: 1, block: 0, number: 42, prize: 150 });
const SUFFIXES = { none: '', Tab: '\t', CR: '\r', LF: '\n', CRLF: '\r\n', LFCR: '\n\r' };
const PREFIXES = ['', ']Q1'];
const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function assertGenuine(events: ReturnType<typeof run>, what: string): void {
  assert.equal(codes(events), [CODE], what);
  const r = checkCode(codes(events)[0], { keys: testKeyRing(), verify: nobleVerify });
  assert.equal([r.status, r.prizeEur], ['win', 150], what);
}

test('unframe: AIM identifier in front, any CR, LF, Tab at the end; never a Base45 character', () => {
  assert.equal([...unframe(']Q1SPH1:A\r\n')], [']Q1SPH1:A\r\n', ']Q1', 'SPH1:A']);
  for (const [name, s] of Object.entries(SUFFIXES)) {
    assert.equal(unframe('SPH1:A' + s).slice(1), ['', 'SPH1:A'], name);
    assert.equal(unframe(']Q0SPH1:A' + s).slice(1), [']Q0', 'SPH1:A'], name);
  }
  assert.equal(unframe('SPH1:A\t\n\r\n\r\t').slice(1), ['', 'SPH1:A']);
  // Every Base45 character at either end stays, and a `]` that is not in front is data.
  for (const c of ALPHABET) assert.equal(unframe(c + 'SPH1:' + c + '\r').slice(1), ['', c + 'SPH1:' + c], c);
  assert.equal(unframe('SPH1:]Q1\r').slice(1), ['', 'SPH1:]Q1']);
  // Only at the end: a control inside is left for checkCode to refuse.
  assert.equal(unframe('SPH1:\rA').slice(1), ['', 'SPH1:\rA']);
  assert.equal(unframe(']Q1').slice(1), [']Q1', '']);
  assert.equal(unframe('').slice(1), ['', '']);
});

test('HID POS: every suffix, with and without the AIM identifier in the data, gives the genuine code', () => {
  for (const aim of PREFIXES) {
    for (const [name, s] of Object.entries(SUFFIXES)) {
      const d = new HidPosDecoder();
      // The report's own AIM field empty when the scanner sends it in the data.
      assertGenuine(run(d, posReports(latin1(aim + CODE + s), aim ? '\0\0\0' : ']Q1')), `${aim} ${name}`);
      assert.is(d.aim, ']Q1', `${aim} ${name}`);
    }
  }
});

test('serial: every suffix, with and without the AIM identifier, gives the genuine code', () => {
  for (const aim of PREFIXES) {
    for (const [name, s] of Object.entries(SUFFIXES)) {
      if (!s) continue; // serial needs a terminator
      const d = new SerialDecoder();
      assertGenuine(run(d, [latin1(aim + CODE + s)]), `${aim} ${name}`);
      assert.is(d.aim, aim, `${aim} ${name}`);
    }
  }
});

test('keyboard wedge: the AIM identifier (US, AZERTY, auto, Alt+numpad) with every suffix key', () => {
  // CR is Enter, Tab is Tab, LF (no key of its own) is Alt+010; CRLF and LFCR are two of them, the second
  // ending an empty code.
  const END = {
    Tab: [report(0, 0x2b), report(0)],
    CR: [report(0, 0x28), report(0)],
    LF: altNumpad('\n').slice(0, -2),
    CRLF: [report(0, 0x28), report(0), ...altNumpad('\n').slice(0, -2)],
    LFCR: [...altNumpad('\n').slice(0, -2), report(0, 0x28), report(0)],
  };
  const typed = (text: string, layout: 'us' | 'fr' | 'alt') =>
    layout === 'alt' ? altNumpad(text).slice(0, -2) : typeText(text, layout === 'us' ? usKey : frKey).slice(0, -2);
  for (const aim of PREFIXES) {
    for (const [name, end] of Object.entries(END)) {
      for (const [layout, decoder] of [
        ['us', 'us'],
        ['fr', 'fr'],
        ['us', 'auto'],
        ['fr', 'auto'],
        ['alt', 'auto'],
      ] as const) {
        const d = new KeyboardWedgeDecoder({ layout: decoder });
        const what = `${aim} ${name} ${layout} → ${decoder}`;
        assertGenuine(run(d, [...typed(aim + CODE, layout), ...end]), what);
        if (layout !== 'alt') assert.is(d.detected, layout, what);
      }
    }
  }
});

test('on the device (QuickJS): a HID POS scanner ending with Tab, a keyboard wedge sending ]Q1', async () => {
  const sim = await boot(chipWith());
  try {
    const code = ticket({ number: 77, prizeEur: 150 });
    for (const r of posReports(latin1(code + '\t'))) sim.inject('hid-pos', r);
    await sim.run(0);
    assert.match(flat(sim.screen), /^GAGNANT .* 150 €$/);
    await sim.press('C');
    await sim.run(2000);
    for (const r of typeText(']Q1' + code, frKey)) sim.inject('hid-keyboard', r);
    await sim.run(0);
    assert.match(flat(sim.screen), /^GAGNANT .* 150 €$/);
    assert.equal(sim.faults, []);
  } finally {
    sim.dispose();
  }
});

test.run();
