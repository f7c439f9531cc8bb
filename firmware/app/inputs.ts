// The inputs: scanners (serial, HID keyboard wedge, HID POS, camera) feeding their decoders, and the
// keypad (OK, C, digits) in every state.
import type { Input, Key } from '../../src/hal.ts';
import { SerialDecoder } from '../../src/input/serial.ts';
import { hidDecoder } from '../hid.ts';
import type { InputEvent } from '../../src/input/event.ts';
import { atOk } from '../decide.ts';
import { BEEPS } from '../../src/signals.ts';
import {
  TEXT,
  cancelledScreen,
  closeZScreen,
  confirmCashScreen,
  errorScreen,
  infoScreen,
  ticketLine,
} from '../screens.ts';
import { newFrameDecoder, type FrameDecoder } from '../camera.ts';
import { RegistryLink } from './registry.ts';
import {
  LOG_EXPIRED_BEFORE_OK,
  LOG_PAYMENT_FAILED,
  LOG_REPRINT_DONE,
  LOG_REPRINT_FAILED,
} from '../../src/messages/log-codes.ts';

/** The same code seen again by the camera within this time is the same ticket still in view. */
const CAMERA_REPEAT_MS = 3000;

export interface Decoder {
  tick(now: number): void;
  read(): InputEvent | undefined;
}

type PushDecoder = Decoder & { push(b: Uint8Array, now: number): void };

/** A decoder made on its first input: a HID one compiles the HID part then (firmware/hid.ts). */
function onFirstInput(make: () => PushDecoder): PushDecoder {
  let d: PushDecoder | null = null;
  return {
    push: (b, now) => (d || (d = make())).push(b, now),
    tick: (now) => {
      if (d) d.tick(now);
    },
    read: () => (d ? d.read() : undefined),
  };
}

export abstract class Inputs extends RegistryLink {
  protected decoders: Decoder[] = [];
  private frameDecoder: FrameDecoder | null = null;
  private lastCamera = { text: '', at: -1e12 };

  /** A complete code text from any scanner (firmware/app.ts). */
  abstract onCode(text: string): void;

  protected openInputs(): void {
    const d = this.dev;
    const on = (name: string) => this.config.inputs.indexOf(name as never) >= 0;
    // A byte or report input feeds its decoder; whole codes go on to the scan path.
    const feed = (dec: PushDecoder, open: (onReadable: () => void) => Input<Uint8Array>) => {
      const input = open(() =>
        this.guard(() => {
          for (let b = input.read(); b; b = input.read()) dec.push(b, this.mono.now());
          this.drain(dec);
        }),
      );
      this.decoders.push(dec);
    };
    if (on('serial')) feed(new SerialDecoder(), (onReadable) => new d.Serial({ baud: 115200, onReadable }));
    for (const mode of ['keyboard', 'pos'] as const)
      if (on(mode))
        feed(
          onFirstInput(() => hidDecoder(mode)),
          (onReadable) => new d.HIDInput({ mode, onReadable }),
        );
    if (on('camera') && newFrameDecoder) {
      const make = newFrameDecoder;
      const cam = new d.Camera({
        onReadable: () =>
          this.guard(() => {
            const f = cam.read();
            if (!f) return;
            // Made on the first frame: in the full build this compiles the camera path (build.mjs).
            const fd = this.frameDecoder || (this.frameDecoder = make());
            const text = fd.decode(f);
            if (text === null) return;
            const now = this.mono.now();
            if (text === this.lastCamera.text && now - this.lastCamera.at < CAMERA_REPEAT_MS) {
              this.lastCamera.at = now;
              return;
            }
            this.lastCamera = { text, at: now };
            this.onCode(text);
          }),
      });
    }
    const keypad = new d.Keypad({
      onReadable: () =>
        this.guard(() => {
          for (let k = keypad.read(); k !== undefined; k = keypad.read()) this.onKey(k);
        }),
    });
  }

  protected drain(dec: Decoder): void {
    for (let e = dec.read(); e; e = dec.read()) {
      if (e.type === 'code') this.onCode(e.text);
      else this.onDropped();
    }
  }

  /** A scan that ended badly (timeout mid-code, noise, too long): refused, nothing touched. */
  private onDropped(): void {
    if (this.state.kind === 'halted' || this.state.kind === 'boot' || this.state.kind === 'clock') return;
    const w = TEXT[this.lang];
    this.shown([w.invalid, this.lang === 'fr' ? 'lecture incomplète' : 'incomplete scan', '', w.invalid], 'refused');
  }

  onKey(k: Key): void {
    const s = this.state;
    if (s.kind === 'halted' || s.kind === 'boot') return;
    if (s.kind === 'clock') return this.answerClock(k, s.rtcMs);
    if (s.kind === 'close-z') {
      this.beeper.play(BEEPS.key);
      return k === 'OK' ? this.report(true) : k === 'C' ? this.ready() : undefined;
    }
    if (s.kind === 'await-pay' || s.kind === 'confirm') {
      if (k === 'OK') {
        // The verdict is from the scan: a claim period that ended since (payWaitMs) ends it here.
        const now = this.trustedNow();
        const dl = this.deadlines.get(s.verdict.ticket.emission);
        // (a notice applied since may have dropped the emission)
        if (dl === undefined) return this.showVerdict({ kind: 'invalid', reason: 'E_EMISSION' }, now);
        const v = atOk(s.verdict, now, dl);
        if (v.kind !== 'win') {
          this.say(LOG_EXPIRED_BEFORE_OK, ticketLine(v.ticket));
          return this.showVerdict(v, now);
        }
        if (
          s.kind === 'await-pay' &&
          this.config.confirmFromEur > 0 &&
          s.verdict.prizeEur >= this.config.confirmFromEur
        ) {
          this.beeper.play(BEEPS.key);
          this.display.show(confirmCashScreen(s.verdict.prizeEur, this.lang));
          this.state = { ...s, kind: 'confirm' };
          return;
        }
        if (!this.link) return this.pay(s.verdict);
        // A ledger that cannot record it says so before the registry grants a ticket this device could
        // not pay (held for it there until an operator releases it).
        if (!this.ledger.ensureRoom()) {
          this.say(LOG_PAYMENT_FAILED, ticketLine(s.verdict.ticket), 'ledger full');
          return this.shown(errorScreen(this.lang, TEXT[this.lang].ledgerFull), 'error');
        }
        return this.link.claim(s.verdict, s.code);
      }
      if (k === 'C') return this.shown(cancelledScreen(this.lang), 'key', 1500);
      this.beeper.play(BEEPS.key);
      return;
    }
    this.beeper.play(BEEPS.key);
    if (s.kind === 'ready') return this.onMenuKey(k);
    // While the registry is asked, keys wait: the answer decides.
    if ((k === 'OK' || k === 'C') && s.kind === 'shown') this.ready();
  }

  /** The ready screen's menu: digits, then OK runs the entry (0: reprint the last receipt); C clears. */
  private onMenuKey(k: Key): void {
    if (k === 'C') this.menu = '';
    else if (k !== 'OK') this.menu = (this.menu + k).slice(-4);
    else {
      const entry = this.menu;
      this.menu = '';
      if (entry === '1') return this.report(false);
      if (entry === '3') return this.shown(infoScreen(this.lang, this.deviceId, this.noticeVersion()), 'key');
      if (entry === '2') {
        this.display.show(closeZScreen(this.lang));
        this.state = { kind: 'close-z', until: this.mono.now() + this.config.payWaitMs };
        return;
      }
      if (entry === '0' && this.lastReceipt && this.printer) {
        const w = TEXT[this.lang];
        const ok = this.print(null);
        this.say(ok ? LOG_REPRINT_DONE : LOG_REPRINT_FAILED);
        return this.shown([ok ? w.recorded : w.noReceipt], ok ? 'key' : 'refused', 1500);
      }
    }
  }
}
