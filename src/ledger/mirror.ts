// The device's ledger partition: the time mark (time-mark.ts), then two logs (ledger.ts) of the
// same size holding the same payments. Every payment is programmed into both, so a corrupted byte
// or a lost sector takes at most one copy of it; lookups take the union. docs/ledger.md. Portable.
import type { Flash } from '../hal.ts';
import { type Payment, type TicketKey } from './format.ts';
import { Ledger, LedgerError, LedgerFull, type LedgerOptions, type LedgerStats, type PaymentInput } from './ledger.ts';
import { MARK_BLOCKS } from './time-mark.ts';

/** A window of whole blocks of `f`. */
export function blockView(f: Flash, first: number, blocks: number): Flash {
  const bl = f.blockLength;
  const size = blocks * bl;
  const at = (o: number, n: number) => {
    if (!(o >= 0 && n >= 0 && o + n <= size)) throw new RangeError(`flash: ${o}+${n} outside ${size}`);
    return first * bl + o;
  };
  const view: Flash = {
    size,
    blockLength: bl,
    read: (o, n) => f.read(at(o, n), n),
    write: (b, o) => f.write(b, at(o, b.length)),
    eraseBlock: (k) => {
      at(k * bl, bl);
      f.eraseBlock(first + k);
    },
  };
  // (only where `f` has one: a reader without it reads the range once, itself)
  const erased = f.erased;
  if (erased) view.erased = (o, n) => erased.call(f, at(o, n), n);
  return view;
}

/** The smallest ledger partition: the time marks, then two logs of three blocks. */
export const LEDGER_MIN_BLOCKS = MARK_BLOCKS + 6;

/** The two time-mark sectors at the start of a ledger partition. */
export function markView(f: Flash): Flash {
  return blockView(f, 0, MARK_BLOCKS);
}

export class MirroredLedger {
  readonly logs: [Ledger, Ledger];
  private phase = 0; // compactStep: which log is being compacted
  private same = false; // both logs hold the same payments (count and digest) and neither saw damage
  private stale = true;
  private synced = false; // a repair copied everything across since the last error
  private surprisesSeen = 0; // A's surprises when `same` was last decided

  private constructor(flash: Flash, opts: LedgerOptions) {
    const n = Math.floor((Math.floor(flash.size / flash.blockLength) - MARK_BLOCKS) / 2);
    if (n < 3) throw new LedgerError('FLASH', `ledger: the partition needs at least ${LEDGER_MIN_BLOCKS} blocks`);
    this.logs = [
      Ledger.open(blockView(flash, MARK_BLOCKS, n), opts),
      Ledger.open(blockView(flash, MARK_BLOCKS + n, n), opts),
    ];
  }

  /** Opens both logs of the partition `flash`. Only reads. */
  static open(flash: Flash, opts: LedgerOptions = {}): MirroredLedger {
    const m = new MirroredLedger(flash, opts);
    m.fresh();
    return m;
  }

  get capacity(): number {
    return Math.min(this.logs[0].capacity, this.logs[1].capacity);
  }

  /** Slots found damaged (torn or corrupted) in either log when it was last read. */
  get damage(): number {
    return this.logs[0].damage + this.logs[1].damage;
  }

  /** Both logs hold the same payments (same count and digest) and neither saw damage: nothing to repair. */
  get agree(): boolean {
    this.fresh();
    return this.same;
  }

  /**
   * Both logs saw damaged slots: a payment may have lost both copies, and which one cannot be told.
   * The firmware then pays nothing and keeps the damage on flash (no compaction) so it stays known.
   */
  get doubtful(): boolean {
    return this.logs[0].damage > 0 && this.logs[1].damage > 0;
  }

  /** The latest payment time held (a lower bound of trusted time). */
  get latestPaidAtMs(): number {
    return Math.max(this.logs[0].latestPaidAtMs, this.logs[1].latestPaidAtMs);
  }

  get count(): number {
    this.fresh();
    if (this.same) return this.logs[0].count;
    let n = this.logs[0].count;
    this.logs[1].forEach((p) => {
      if (!this.logs[0].find(p)) n++;
    });
    return n;
  }

  find(k: TicketKey): Payment | undefined {
    this.fresh();
    const p = this.logs[0].find(k);
    if (p) return p;
    // A's lookup may have met a slot its flash no longer holds (a lost sector, a flipped bit):
    // whether the logs agree is decided again before B is skipped.
    this.fresh();
    // While the logs agree, A holds every payment B holds: B keeps no fingerprints then (slim).
    return this.same ? undefined : this.logs[1].find(k);
  }

  /** Room for one payment in both logs, reclaiming dead slots if needed (drops nothing); false when full. */
  ensureRoom(): boolean {
    this.fresh();
    let ok = false;
    this.mutate(() => {
      ok = this.logs[0].ensureRoom() && this.logs[1].ensureRoom();
    });
    return ok;
  }

  /** Records into both logs; returns once both copies are on flash. Errors as `Ledger.record`. */
  record(input: PaymentInput): void {
    this.fresh();
    if (input && typeof input === 'object' && this.find(input)) {
      throw new LedgerError(
        'DUPLICATE',
        `ticket ${input.emission}-${input.block}-${input.number} is already in the ledger`,
      );
    }
    this.mutate(() => {
      // Room in both first: a payment is never in one log only because the other was full.
      if (!this.logs[0].ensureRoom() || !this.logs[1].ensureRoom()) {
        throw new LedgerFull(
          `ledger full: ${this.logs[0].count} payments held (capacity ${this.capacity}); compact it`,
        );
      }
      this.logs[0].record(input);
      this.logs[1].record(input);
    });
  }

  /**
   * Copies every payment held by one log only into the other (a damaged or lost copy, a payment
   * cut between its two writes), unless `keep` refuses it. Returns the payments copied. `kick` is
   * called every 1 024 payments looked at (a full ledger takes seconds: feed the watchdog).
   */
  repair(keep: (p: Payment) => boolean = () => true, kick?: () => void): Payment[] {
    this.fresh();
    const copied: Payment[] = [];
    if (this.same) return copied;
    let skipped = 0;
    let seen = 0;
    this.mutate(() => {
      for (let i = 0; i < 2; i++) {
        const from = this.logs[i],
          to = this.logs[1 - i];
        const missing: Payment[] = [];
        from.forEach((p) => {
          if ((++seen & 1023) === 0 && kick) kick();
          if (!to.find(p)) {
            if (keep(p)) missing.push(p);
            else skipped++;
          }
        });
        for (const p of missing) {
          try {
            to.record(p);
            copied.push(p);
          } catch (e) {
            if (!(e instanceof LedgerFull)) throw e; // the copy in `from` stays
            skipped++;
          }
        }
      }
    });
    this.synced = skipped === 0;
    return copied;
  }

  /** As `Ledger.compactStep`, on one log then the other. */
  compactStep(keep: (p: Payment) => boolean): { dropped: number; done: boolean } {
    this.fresh();
    let r = { dropped: 0, done: true };
    this.mutate(() => {
      r = this.logs[this.phase].compactStep(keep);
      if (this.phase === 1) r.dropped = 0; // the same payments as in the first log
      if (r.done) this.phase = 1 - this.phase;
      r.done = r.done && this.phase === 0;
    });
    return r;
  }

  /** Calls `fn` for every payment held, once (`false` stops). */
  forEach(fn: (p: Payment) => boolean | void): void {
    this.fresh();
    let stop = false;
    this.logs[0].forEach((p) => !(stop = fn(p) === false));
    if (stop || this.same) return;
    this.logs[1].forEach((p) => this.logs[0].find(p) !== undefined || fn(p) !== false);
  }

  some(pred: (p: Payment) => boolean): boolean {
    let found = false;
    this.forEach((p) => !(found = pred(p)));
    return found;
  }

  /** The first log's figures; `freeSectors` is the lower of the two. */
  stats(): LedgerStats & { damage: number } {
    this.fresh();
    const a = this.logs[0].stats();
    return { ...a, freeSectors: Math.min(a.freeSectors, this.logs[1].stats().freeSectors), damage: this.damage };
  }

  private fresh(): void {
    const [a, b] = this.logs;
    // A surprise in A (in any lookup, this one's or an earlier one's): what `same` rests on is gone.
    if (a.surprises !== this.surprisesSeen) {
      this.synced = false;
      this.stale = true;
    }
    if (!this.stale) return;
    // (damage seen at open stays counted until a log is read again: after a full repair the logs agree)
    this.same = this.synced || (a.count === b.count && a.digest === b.digest && a.damage + b.damage === 0);
    // B answers no lookup while the logs agree: its index keeps one bit a slot (B.find builds it back).
    if (this.same) b.slim();
    this.surprisesSeen = a.surprises;
    this.stale = false;
  }

  private mutate(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.synced = false;
      throw e;
    } finally {
      this.stale = true; // cheap: two counts, two digests and two damage figures
    }
  }
}

// Not methods, so the firmware bundle leaves them out.

/** Every payment held, in order of payment time (all in RAM at once: for export and tests). */
export function mirroredEntries(m: MirroredLedger): Payment[] {
  const out: Payment[] = [];
  m.forEach((p) => {
    out.push(p);
  });
  return out.sort((a, b) => a.paidAtMs - b.paidAtMs);
}

/** Every payment held on the ledger partition `flash`, in order of payment time. */
export function readLedgerPartition(flash: Flash): Payment[] {
  return mirroredEntries(MirroredLedger.open(flash));
}

/** Compacts both logs to the end (`compactStep` until done); returns how many payments were dropped. */
export function compactMirrored(m: MirroredLedger, keep: (p: Payment) => boolean): number {
  let dropped = 0;
  for (let r = { dropped: 0, done: false }; !r.done; dropped += r.dropped) r = m.compactStep(keep);
  return dropped;
}
