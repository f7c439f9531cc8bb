// The explorer's reference model: what the device may show and hold after each step, written apart
// from the firmware (no import of firmware/ or src/ledger): it knows the tickets it generated, the
// payments it saw confirmed, the configuration and the clock, and reads the device only through what
// a person sees (the display) and what the flash holds (the ledger, read by the simulator).
import type { Step } from '../scenario.ts';
import type { TicketSpec } from '../tickets.ts';
import type { Schedule, StepMeta } from './schedule.ts';
import { claimEndMs } from './deadline.ts';

const DAY = 86_400_000;
/**
 * How far the firmware's mark of trusted time on flash may lag the time it decided with: it stores the
 * mark when trusted time is more than a day past it (docs/ledger.md, *Trusted time*), so after a reboot
 * with the clock set back it may decide with up to a day less. The one ambiguity of the deadline check
 * besides the length of the step that decided.
 */
export const MARK_LAG_MS = DAY;

export type Shown =
  | 'win'
  | 'centre'
  | 'lose'
  | 'invalid'
  | 'already-paid'
  | 'expired'
  | 'paid'
  | 'cancelled'
  | 'error'
  | 'ready'
  | 'boot'
  | 'other';

/** The words of the device's screens the model recognises (the product's UI specification). */
const WORDS: Record<'fr' | 'en', { first: [string, Shown][]; okLine: string; ready: string }> = {
  fr: {
    first: [
      ['GAGNANT', 'win'],
      ['PERDANT', 'lose'],
      ['NON VALIDE', 'invalid'],
      ['DÉJÀ PAYÉ', 'already-paid'],
      ['TICKET EXPIRÉ', 'expired'],
      ['PAYÉ', 'paid'],
      ['Paiement annulé', 'cancelled'],
      ['ERREUR', 'error'],
    ],
    okLine: 'OK payer',
    ready: 'PRÊT',
  },
  en: {
    first: [
      ['WINNER', 'win'],
      ['LOSER', 'lose'],
      ['NOT VALID', 'invalid'],
      ['ALREADY PAID', 'already-paid'],
      ['TICKET EXPIRED', 'expired'],
      ['PAID', 'paid'],
      ['Payment cancelled', 'cancelled'],
      ['ERROR', 'error'],
    ],
    okLine: 'OK pay',
    ready: 'READY',
  },
};

/** The third line of a win the device pays here ("OK payer"): what tells it from a payment centre's. */
export const okLineFor = (lang: 'fr' | 'en'): string => WORDS[lang].okLine;

export function wordFor(lang: 'fr' | 'en', kind: Shown): string {
  if (kind === 'ready') return WORDS[lang].ready;
  if (kind === 'centre') return WORDS[lang].first[0][0];
  return WORDS[lang].first.find(([, k]) => k === kind)?.[0] ?? kind;
}

export function classify(lines: readonly string[], lang: 'fr' | 'en'): Shown {
  const w = WORDS[lang];
  const first = (lines[0] ?? '').trim();
  if ((lines[1] ?? '').trim() === w.ready) return 'ready';
  for (const [word, kind] of w.first) {
    if (first === word) {
      if (kind === 'win') return (lines[2] ?? '').startsWith(w.okLine) ? 'win' : 'centre';
      return kind;
    }
  }
  if ((lines[3] ?? '').trim().length > 0 && /…|\.\.\./.test(lines[3] ?? '')) return 'boot';
  return 'other';
}

const VERDICTS: ReadonlySet<Shown> = new Set(['win', 'centre', 'lose', 'invalid', 'already-paid', 'expired']);

export interface Payment {
  emission: number;
  block: number;
  number: number;
  prizeEur: number;
}

export interface Violation {
  invariant: number;
  /** 1-based step of the scenario where it showed. */
  step: number;
  message: string;
  /** What a replay checks right after that step (scenario steps, or none when a scenario cannot say it). */
  expect?: Step[];
  /** The step is a scan whose key during it came after the verdict: the replay scans without the key. */
  withoutPress?: boolean;
}

export class ViolationError extends Error {
  constructor(readonly v: Violation) {
    super(`invariant ${v.invariant}, step ${v.step}: ${v.message}`);
  }
}

const key = (t: { emission: number; block: number; number: number }) => `${t.emission}-${t.block}-${t.number}`;

/** What one step let the model see. */
/** Longest gap after which a serial decoder surely dropped a partial code (its 500 ms timeout, on 100 ms ticks). */
const SERIAL_JOIN_MS = 600;

export interface Observation {
  step: Step;
  meta: StepMeta;
  index: number;
  /** Screens shown during the step, in order. */
  screens: string[][];
  /** Power events during the step (`boot …`, `off (…)`). */
  power: string[];
  logs: string[];
  on: boolean;
  clockMs: number;
  /** Virtual time at the end of the step (ms since the simulation started). */
  nowMs?: number;
  /** The ledger after the step, when it was read. */
  ledger?: Payment[] | { error: string };
  heapBytes?: number;
  /** On devices that boot images: the bootloader's state and slots, how the device runs, the last update. */
  boot?: BootView;
}

export interface BootView {
  minCounter: number;
  /** Security counters of the slots that hold a valid image. */
  validCounters: number[];
  /** `developer` or `image slot A v0.2.0`. */
  bootMode: string;
  runningSlot: number | null;
  /** The slot the boot state holds confirmed (an update goes to the other one). */
  confirmedSlot: number;
  pendingConfirm: boolean;
  /** The result of this step's update. */
  update?: {
    image: string;
    counter: number;
    ok: boolean;
    reason?: string;
    slot?: number;
    /** The power went before the device was shown the image (over the service port: at ABORT, before BEGIN). */
    beforeImage?: boolean;
  };
}

export interface ModelOptions {
  /** Heap bound of the firmware (bytes). */
  heapLimit: number;
  /** Whether halting on a damaged ledger is a documented outcome (the ledger-damage menu is on). */
  haltAllowed: boolean;
}

export class Model {
  readonly paid = new Map<string, Payment>();
  /** OK pressed on a win when the power went: the ledger may or may not hold it. */
  readonly inFlight = new Map<string, Payment>();
  /**
   * Payments found on flash after a cut, never shown PAYÉ: the ledger promises to keep confirmed
   * payments through damage, not these (a damaged copy of one may go, and its ticket is payable again).
   */
  readonly unconfirmed = new Set<string>();
  /** The last screen shown (before the step being observed). */
  last: string[] = [];
  halted = false;
  /**
   * Trusted time, seen from outside, between two bounds. `decidedMs`: the latest clock the device surely
   * decided with (it showed a verdict, PAYÉ, or PRÊT after a boot, at the clock the step began with or
   * later; the firmware promises that time is on flash within a day, MARK_LAG_MS, before it shows it),
   * so trusted time is never below `decidedMs - MARK_LAG_MS` nor below a believed clock. `upperMs`: the
   * most trusted time can be, the highest clock it may have read (its idle ticks read the RTC) plus the
   * time that ran since (a clock set back is not believed: trusted time runs on from the mark).
   */
  decidedMs = 0;
  upperMs = 0;
  /** The clock when the step being observed began (it decided no earlier). */
  private startClockMs = 0;
  private readonly endMs = new Map<number, number>();
  readonly lang: 'fr' | 'en';
  private readonly tickets = new Map<string, TicketSpec>();

  constructor(
    readonly schedule: Schedule,
    readonly o: ModelOptions,
  ) {
    this.lang = schedule.config.lang;
    for (const e of schedule.config.emissions) this.endMs.set(e.emission, claimEndMs(e.closingDate));
    for (const op of schedule.ops)
      for (const s of op.steps)
        if (s.kind === 'scan' && s.ticket && s.ticket.key !== 'other') this.tickets.set(key(s.ticket), s.ticket);
  }

  /** The verdicts a genuine ticket may get now, per the configuration, the clock and the payments seen. */
  expected(t: TicketSpec, nowMs = 0): Shown[] {
    if (t.prize === 0) return ['lose'];
    const em = this.schedule.config.emissions.find((e) => e.emission === t.emission);
    if (!em) return ['invalid'];
    const { open, expired } = this.claim(t.emission, nowMs);
    // Past the deadline, compaction may drop the payment: then the ticket is shown expired.
    if (this.paid.has(key(t))) return open ? ['already-paid'] : ['already-paid', 'expired'];
    const mayBePaid = this.inFlight.has(key(t));
    const payable: Shown = t.prize > this.schedule.config.payoutLimitEur ? 'centre' : 'win';
    const out: Shown[] = expired ? ['expired'] : open ? [payable] : ['expired', payable];
    if (mayBePaid) out.push('already-paid');
    return out;
  }

  /** When the last step ended, and the last serial scan with line noise (virtual ms). */
  private stepEndMs = 0;
  private noisyEndMs = -Infinity;

  private minCounter = 0;
  /** An update was installed: the next boot runs it on trial from this slot. */
  private trialSlot: number | null = null;

  private observeBoot(ob: Observation, b: BootView, fail: (inv: number, msg: string, expect?: Step[]) => never): void {
    if (b.minCounter < this.minCounter)
      fail(5, `anti-rollback went down: minimum security counter ${b.minCounter} after ${this.minCounter}`);
    this.minCounter = b.minCounter;
    if (!b.validCounters.some((c) => c >= b.minCounter))
      fail(
        5,
        `no bootable image left (valid slots' counters ${b.validCounters.join(', ') || 'none'}, minimum ${b.minCounter})`,
      );
    const u = b.update;
    // Cut before the device saw the image (the host's ABORT erasing an old journal): nothing was judged,
    // and the boot state was not touched (a trial already installed still starts at the next boot).
    if (u && !u.beforeImage) {
      if (u.image === 'forged' && (u.ok || u.reason !== 'signature'))
        fail(5, `a forged image was ${u.ok ? 'installed' : `refused for ${u.reason}, not its signature`}`);
      else if (u.image !== 'forged' && u.counter < b.minCounter && (u.ok || u.reason !== 'rollback'))
        fail(
          5,
          `an image of security counter ${u.counter} below ${b.minCounter} was ${u.ok ? 'installed' : `refused for ${u.reason}`}`,
        );
      else if (
        u.image !== 'forged' &&
        u.counter >= b.minCounter &&
        !u.ok &&
        u.reason !== 'power-cut' &&
        u.reason !== 'busy'
      )
        // A replay shows it: the next boot should start the update from the slot it was written to.
        fail(5, `a good update was refused: ${u.reason}`, [
          { kind: 'reboot', line: 0 },
          { kind: 'expect-image', line: 0, slot: 'AB'[1 - b.confirmedSlot] as 'A' },
        ]);
      if (u.ok) this.trialSlot = u.slot ?? null;
      else if (u.reason === 'power-cut') this.trialSlot = null;
    }
    // A cut while the bootloader records that the trial started may leave it recorded (the trial is
    // spent: the next boot reverts) or not (the next boot tries again): either slot may start next.
    if (ob.power.some((p) => p.includes('power cut in the bootloader'))) this.trialSlot = null;
    if (ob.power.some((p) => p.startsWith('boot'))) {
      if (!b.bootMode.startsWith('image')) fail(5, `the device booted ${b.bootMode}, not a signed image`);
      // The slot of the first boot in this step: the one after the install. A cut during that trial boot,
      // before the firmware confirmed the image, spends the trial: a later boot of the same step (an
      // ensure-on after the cut) reverts to the previous image, as the bootloader promises.
      const first = ob.power.find((p) => p.startsWith('boot')) ?? b.bootMode;
      const bootedSlot = /image slot ([AB])/.exec(first)?.[1];
      if (this.trialSlot !== null && bootedSlot !== 'AB'[this.trialSlot] && !ob.power.some((p) => /reset/.test(p))) {
        fail(5, `an installed update (slot ${'AB'[this.trialSlot]}) did not start at the next boot (${first})`, [
          { kind: 'expect-image', line: 0, slot: 'AB'[this.trialSlot] as 'A' },
        ]);
      }
      this.trialSlot = null;
      if (ob.on && !this.halted && b.pendingConfirm)
        fail(5, `the firmware reached ready but did not confirm its image (${b.bootMode})`, [
          { kind: 'expect-image', line: 0, confirmed: true },
        ]);
    }
  }

  /**
   * Whether the claim period of `emission` is surely still open (trusted time at most `upperMs`, before
   * its end) or surely over (trusted time at least `decidedMs - MARK_LAG_MS` or the clock `lowMs` the
   * deciding step began with, at or past its end). The end is exact (`claimEndMs`, deadline.ts); both
   * at once only when trusted time may be on either side of it.
   */
  claim(emission: number, lowMs = 0): { open: boolean; expired: boolean } {
    const end = this.endMs.get(emission);
    if (end === undefined) return { open: false, expired: false };
    return {
      open: this.upperMs < end,
      expired: Math.max(this.decidedMs - MARK_LAG_MS, lowMs) >= end,
    };
  }

  observe(ob: Observation): void {
    const fail = (invariant: number, message: string, expect?: Step[], withoutPress?: boolean): never => {
      throw new ViolationError({
        invariant,
        step: ob.index,
        message,
        expect,
        ...(withoutPress ? { withoutPress } : {}),
      });
    };
    const lang = this.lang;
    const { step, meta, screens } = ob;
    const wasOn = !this.halted;
    // The clock the step began with (only set-clock moves it other than with time), and the most
    // trusted time can be by its end.
    const ran = ob.nowMs !== undefined ? ob.nowMs - this.stepEndMs : 0;
    this.startClockMs = step.kind === 'set-clock' ? ob.clockMs : ob.clockMs - ran;
    this.upperMs = Math.max(this.upperMs + ran, ob.clockMs);
    // A scan's verdict is decided with the clock of then (the firmware never goes below the RTC).
    const nowMs = step.kind === 'scan' ? this.startClockMs : 0;
    const within = 1;

    // 4: no reset the schedule did not ask for, no unhandled exception.
    for (const p of ob.power) if (/reset/.test(p)) fail(4, `the device reset by itself: ${p}`);
    // The power went during the step: what the firmware logged on its way down (a PowerCut caught) is moot.
    const cut = ob.power.some((p) => p.startsWith('off'));
    for (const l of cut ? [] : ob.logs) {
      if (/^error:/.test(l))
        fail(4, `unhandled exception in the firmware: ${l}`, [
          {
            kind: 'expect-display',
            line: 0,
            matches: new RegExp(`^(?![\\s\\S]*${wordFor(lang, 'error')})`),
            withinMs: within,
          },
        ]);
      if (/^halted:/.test(l)) {
        if (!this.o.haltAllowed)
          fail(4, `the firmware halted: ${l}`, [
            {
              kind: 'expect-display',
              line: 0,
              matches: new RegExp(`^(?![\\s\\S]*${wordFor(lang, 'error')})`),
              withinMs: within,
            },
          ]);
        this.halted = true;
      }
    }
    if (ob.power.some((p) => p.startsWith('boot'))) this.halted = ob.logs.some((l) => /^halted:/.test(l));

    // The verdict a scan must get is the one due when it arrived (a key during the scan may pay it after).
    const wantNow =
      step.kind === 'scan' && step.ticket && meta.cls === 'genuine' ? this.expected(step.ticket, nowMs) : [];

    // 1, 2: PAYÉ only after OK on a payable win, once per ticket, for its amount.
    let prev = this.last;
    let sawPaid = false;
    /** Tickets paid during this step, with the index of their PAYÉ screen. */
    const paidAt = new Map<string, number>();
    for (const [n, s] of screens.entries()) {
      const k = classify(s, lang);
      if (k === 'paid') {
        sawPaid = true;
        paidAt.set((prev[1] ?? '').trim(), n);
        const offer = classify(prev, lang);
        const okPressed =
          (step.kind === 'press' && step.key === 'OK') || (step.kind === 'scan' && step.during?.key === 'OK');
        if (!okPressed) fail(1, `PAYÉ shown without OK (on ${describeStep(step)})`, [notOnLine(lang, 'paid', 1)]);
        if (offer !== 'win')
          fail(1, `PAYÉ shown after ${offer}, not after a payable GAGNANT`, [notOnLine(lang, 'paid', 1)]);
        const id = (prev[1] ?? '').trim();
        const t = this.tickets.get(id);
        if (!t) fail(3, `PAYÉ for ${id}, a ticket the schedule never scanned`, [notOnLine(lang, 'paid', 1)]);
        else {
          if (this.paid.has(id)) fail(1, `ticket ${id} paid a second time`, [notOnLine(lang, 'paid', 1)]);
          // The verdict was the scan's: OK after the claim period closed meanwhile must not pay.
          if (this.claim(t.emission, this.startClockMs).expired)
            fail(1, `ticket ${id} paid after its claim period closed`, [notOnLine(lang, 'paid', 1)]);
          const amount = Number((s[3] ?? '').replace(/[^0-9]/g, ''));
          if (amount !== t.prize) fail(2, `PAYÉ shows ${s[3]} for ticket ${id} of ${t.prize} €`);
          this.paid.set(id, { emission: t.emission, block: t.block, number: t.number, prizeEur: t.prize });
          this.inFlight.delete(id);
        }
      }
      prev = s;
    }
    // OK (pressed, or during a scan) and the power went before PAYÉ: the payment offered may be on flash.
    const okHere = (step.kind === 'press' && step.key === 'OK') || (step.kind === 'scan' && step.during?.key === 'OK');
    if (okHere && !sawPaid && ob.power.some((p) => p.startsWith('off'))) {
      const offered =
        [...screens].reverse().find((x) => classify(x, lang) === 'win') ??
        (classify(this.last, lang) === 'win' ? this.last : undefined);
      const t = offered ? this.tickets.get((offered[1] ?? '').trim()) : undefined;
      if (t) this.inFlight.set(key(t), { emission: t.emission, block: t.block, number: t.number, prizeEur: t.prize });
    }

    // 3: verdicts.
    if (step.kind === 'scan' && wasOn && ob.on && !ob.power.length) {
      const verdictScreens = screens.filter((s) => VERDICTS.has(classify(s, lang)));
      const lastScreen = verdictScreens[verdictScreens.length - 1];
      const got = lastScreen ? classify(lastScreen, lang) : undefined;
      if (meta.cls === 'genuine' && step.ticket) {
        // An OK during the scan may have paid this very ticket (offered by an earlier scan) before its verdict.
        const paidHere = paidAt.get(key(step.ticket));
        const want =
          paidHere !== undefined && paidHere < screens.lastIndexOf(lastScreen)
            ? this.expected(step.ticket, nowMs)
            : wantNow;
        // Noise may have turned the terminator of a serial scan into a letter: a code sent before the
        // decoder's inter-byte timeout (500 ms, on 100 ms ticks) joins its tail, and is refused.
        const joined = step.via === 'serial' && this.stepEndMs - this.noisyEndMs <= SERIAL_JOIN_MS;
        if (joined && (got === undefined || got === 'invalid')) {
          // nothing to check: the code read was not this ticket's alone
        } else if (got === undefined) {
          if (step.via !== 'camera')
            fail(3, `no verdict for ticket ${key(step.ticket)} (expected ${want.join(' or ')})`, [
              expectFirst(lang, want),
            ]);
        } else if (!want.includes(got)) {
          const inv = got === 'win' && this.paid.has(key(step.ticket)) ? 1 : 3;
          // A key during the scan that came after the verdict (it left another screen, paid nothing):
          // the replay scans without it, so the verdict is still on screen for its check.
          const keyAfter = !!step.during && paidAt.size === 0 && screens[screens.length - 1] !== lastScreen;
          fail(
            inv,
            `ticket ${key(step.ticket)} (${step.ticket.prize} €, emission ${step.ticket.emission}) shown ${got}, the model says ${want.join(' or ')}`,
            [expectFirst(lang, want)],
            keyAfter,
          );
        } else if (got === 'win' && (lastScreen?.[1] ?? '').trim() !== key(step.ticket)) {
          fail(3, `GAGNANT shows ticket ${lastScreen?.[1]}, scanned ${key(step.ticket)}`);
        }
      } else if (meta.cls === 'forged' || meta.cls === 'foreign' || meta.cls === 'untabled') {
        const what = {
          forged: 'forged ticket',
          foreign: "foreign game's code",
          untabled: 'code of a prize out of the table',
        }[meta.cls];
        if (got !== undefined && got !== 'invalid')
          fail(3, `a ${what} was shown ${got}`, [expectFirst(lang, ['invalid'])]);
      } else if (meta.cls === 'mutated' || meta.cls === 'garbage') {
        if (got === 'win' || got === 'centre' || got === 'already-paid' || got === 'expired')
          fail(3, `a ${meta.cls} code was shown ${got}`, [notOnLine(lang, got, 1)]);
      }
    }

    // 4: a boot ends on PRÊT (or the documented halt).
    if (
      (step.kind === 'boot' || step.kind === 'reboot' || step.kind === 'ensure-on') &&
      ob.on &&
      ob.power.some((p) => p.startsWith('boot'))
    ) {
      const end = screens[screens.length - 1] ?? [];
      if (!this.halted && classify(end, lang) !== 'ready')
        fail(4, `not ready after boot: ${end.join(' | ')}`, [readyExpect(lang)]);
    }
    if (meta.op === 'settle' && ob.on && !this.halted) {
      const end = screens.length ? screens[screens.length - 1] : this.last;
      if (classify(end, lang) !== 'ready')
        fail(
          4,
          `not back to ${wordFor(lang, 'ready')} ${step.kind === 'delay' ? step.ms : 0} ms after the last operation: ${end.join(' | ')}`,
          [readyExpect(lang)],
        );
    }

    // 2: the ledger holds exactly what was shown PAYÉ (and maybe what was in flight at a cut).
    if (ob.ledger) {
      if (!Array.isArray(ob.ledger)) return fail(2, `the ledger cannot be read: ${ob.ledger.error}`);
      const seen = new Set<string>();
      for (const p of ob.ledger) {
        const id = key(p);
        if (seen.has(id)) fail(2, `ticket ${id} is in the ledger twice`);
        seen.add(id);
        const known = this.paid.get(id) ?? this.inFlight.get(id);
        if (!known) {
          // A payment shown PAYÉ and absent says more to a replay than a count (a ledger the firmware
          // reads as it wrote, against the format, holds as many payments, under other keys).
          const ids = new Set(ob.ledger.map(key));
          const gone = [...this.paid.values()].find((q) => !ids.has(key(q)));
          return fail(2, `the ledger holds ${id} (${p.prizeEur} €), never shown PAYÉ`, [
            gone
              ? {
                  kind: 'expect-ledger',
                  line: 0,
                  contains: { emission: gone.emission, block: gone.block, number: gone.number },
                  withinMs: 0,
                }
              : { kind: 'expect-ledger', line: 0, count: this.paid.size, withinMs: 0 },
          ]);
        }
        if (known.prizeEur !== p.prizeEur)
          fail(2, `the ledger holds ${id} for ${p.prizeEur} €, paid ${known.prizeEur} €`);
        if (!this.paid.has(id)) {
          this.paid.set(id, known);
          this.unconfirmed.add(id);
          this.inFlight.delete(id);
        }
      }
      // A payment cut short is settled by what the flash holds (read by the simulator's own ledger
      // reader, CRC and all): absent now, it was never made, and the ticket is payable again.
      for (const id of [...this.inFlight.keys()]) if (!seen.has(id)) this.inFlight.delete(id);
      for (const id of [...this.unconfirmed]) {
        if (seen.has(id)) continue;
        this.unconfirmed.delete(id);
        this.paid.delete(id);
      }
      for (const [id, p] of this.paid) {
        // Compaction drops payments whose claims have closed: allowed once the claim period may be over.
        if (!seen.has(id) && this.claim(p.emission).open)
          fail(2, `payment of ${id} (${p.prizeEur} €) shown PAYÉ is missing from the ledger`, [
            {
              kind: 'expect-ledger',
              line: 0,
              contains: { emission: p.emission, block: p.block, number: p.number },
              withinMs: 0,
            },
          ]);
      }
    }

    // 5: updates and the bootloader.
    if (ob.boot) this.observeBoot(ob, ob.boot, fail);

    // 6: heap.
    if (ob.heapBytes !== undefined && ob.heapBytes > this.o.heapLimit)
      fail(6, `firmware heap ${ob.heapBytes} B above the bound of ${this.o.heapLimit} B`);

    if (ob.nowMs !== undefined) {
      if (step.kind === 'scan' && step.via === 'serial' && Number(step.options.noise ?? 0) > 0)
        this.noisyEndMs = ob.nowMs;
      this.stepEndMs = ob.nowMs;
    }
    const booted = ob.power.some((p) => p.startsWith('boot'));
    if (
      screens.some(
        (s) =>
          VERDICTS.has(classify(s, lang)) || classify(s, lang) === 'paid' || (booted && classify(s, lang) === 'ready'),
      )
    )
      this.decidedMs = Math.max(this.decidedMs, this.startClockMs);
    if (screens.length) this.last = screens[screens.length - 1];
    if (!ob.on) this.last = [];
  }
}

function expectFirst(lang: 'fr' | 'en', want: Shown[]): Step {
  const words = [...new Set(want.map((k) => wordFor(lang, k)))];
  return {
    kind: 'expect-display',
    line: 0,
    row: 1,
    matches: new RegExp(`^(${words.map(escape).join('|')})$`),
    withinMs: 1,
  };
}

function notOnLine(lang: 'fr' | 'en', kind: Shown, row: number): Step {
  return {
    kind: 'expect-display',
    line: 0,
    row,
    matches: new RegExp(`^(?!${escape(wordFor(lang, kind))}$)`),
    withinMs: 1,
  };
}

function readyExpect(lang: 'fr' | 'en'): Step {
  return { kind: 'expect-display', line: 0, row: 2, contains: wordFor(lang, 'ready'), withinMs: 1 };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function describeStep(s: Step): string {
  return s.kind === 'press' ? `press ${s.key}` : s.kind;
}
