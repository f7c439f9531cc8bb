// The paid-ticket ledger on a HAL Flash partition: a log of fixed-size payment slots spread over
// sectors, each sector stamped with a sequence number. Appends go to the newest sector ("head");
// compaction copies what it keeps into the head before erasing a sector, so every record always has
// at least one valid copy on flash. Format and power-cut promise: docs/ledger.md. Portable.
import type { Flash } from '../hal.ts';
import {
  HEADER_SIZE,
  SLOT_SIZE,
  decodeHeader,
  decodePayment,
  encodeHeader,
  encodePayment,
  paymentProblem,
  slotBlock,
  slotEmission,
  slotNumber,
  slotState,
  type Payment,
  type TicketKey,
} from './format.ts';
import { KeyIndex, MAX_LOC_BITS, keyHash } from './key-index.ts';

export type LedgerErrorCode = 'FULL' | 'DUPLICATE' | 'INVALID' | 'FLASH';

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  constructor(code: LedgerErrorCode, message: string) {
    super(message);
    this.name = 'LedgerError';
    this.code = code;
  }
}

/** No room for one more payment: nothing was written, nothing already recorded is lost. */
export class LedgerFull extends LedgerError {
  constructor(message: string) {
    super('FULL', message);
    this.name = 'LedgerFull';
  }
}

export interface LedgerOptions {
  /** Filled in for payments recorded without a deviceId. */
  deviceId?: string;
}

/** A payment as given to `record`: deviceId defaults to the ledger's. */
export type PaymentInput = Omit<Payment, 'deviceId'> & { deviceId?: string };

export interface LedgerStats {
  sectors: number;
  slotsPerSector: number;
  freeSectors: number;
  /** Slots compaction would give back: torn, corrupted or superseded ones, and unused room in sectors other than the head. */
  deadSlots: number;
  headSector: number;
  /** RAM held by the key index. */
  indexBytes: number;
}

const FREE = -1;
/** Free sectors a payment leaves: capacity is (sectors - RESERVE) × slots a sector. */
const RESERVE = 2;
/** Clean sectors a compaction step reads at most before it returns. */
const STEP_SCAN = 16;
/** A sector without a valid header but with valid slots (a damaged header, an interrupted erase). */
const ORPHAN = -2;
/** A sector whose erase or program failed since the last scan: not used. */
const BAD = -3;

export class Ledger {
  readonly capacity: number;
  readonly slotsPerSector: number;
  readonly sectors: number;
  private readonly bl: number;
  private seq: Float64Array;
  private used: Uint16Array;
  private live: Uint16Array;
  private head = -1;
  private maxSeq = 0;
  private index!: KeyIndex;
  private stale = true;
  /** Compaction pass: sectors up to this sequence number were found clean (-1: none yet). */
  private cursorSeq = -1;
  /** Slots found corrupted or torn by the last scan (a mirror then compares its two logs). */
  damage = 0;
  /** The latest payment time held on flash (a lower bound of trusted time). */
  latestPaidAtMs = 0;
  /** Sum (mod 2^32) of the key hashes of the payments held: two logs holding the same payments agree. */
  digest = 0;
  /**
   * Lookups that met a slot the index holds live but flash no longer does (a sector lost, a bit
   * flipped since the scan): RAM is behind flash, so the next call reads it again.
   */
  surprises = 0;

  private constructor(
    private readonly flash: Flash,
    private readonly deviceId: string | undefined,
  ) {
    const bl = flash.blockLength;
    if (!(bl >= HEADER_SIZE + SLOT_SIZE) || !Number.isInteger(bl) || !(flash.size >= (RESERVE + 1) * bl)) {
      throw new LedgerError(
        'FLASH',
        `ledger: the partition needs at least ${RESERVE + 1} blocks of ≥ ${HEADER_SIZE + SLOT_SIZE} bytes`,
      );
    }
    this.bl = bl;
    this.slotsPerSector = Math.floor((bl - HEADER_SIZE) / SLOT_SIZE);
    // The index addresses at most 2^15 - 2 slots; sectors beyond stay unused.
    const maxSectors = Math.floor(((1 << MAX_LOC_BITS) - 2) / this.slotsPerSector);
    this.sectors = Math.min(Math.floor(flash.size / bl), maxSectors);
    this.capacity = (this.sectors - RESERVE) * this.slotsPerSector;
    this.seq = new Float64Array(this.sectors);
    this.used = new Uint16Array(this.sectors);
    this.live = new Uint16Array(this.sectors);
  }

  /** Opens the ledger on `flash`, recovering from whatever a power cut left. Only reads. */
  static open(flash: Flash, opts: LedgerOptions = {}): Ledger {
    if (opts.deviceId !== undefined) {
      const bad = paymentProblem({
        emission: 0,
        block: 0,
        number: 0,
        prizeEur: 0,
        paidAtMs: 0,
        deviceId: opts.deviceId,
      });
      if (bad) throw new LedgerError('INVALID', bad.replace('payment: ', 'ledger: '));
    }
    const l = new Ledger(flash, opts.deviceId);
    l.scan();
    return l;
  }

  /** Every payment held on `flash`, in order of payment time (for export). */
  static readEntries(flash: Flash): Payment[] {
    return Ledger.open(flash).entries();
  }

  get count(): number {
    this.fresh();
    return this.index.count;
  }

  /** The payment of this ticket, if it was paid. */
  find(key: TicketKey): Payment | undefined {
    this.fresh();
    if (!key || !isU16(key.emission) || !isU16(key.block) || !isU32(key.number)) return undefined;
    const loc = this.locOf(key.emission, key.block, key.number);
    return loc < 0 ? undefined : this.readAt(loc);
  }

  /**
   * Records a payment; returns once it is on flash (it then survives any power cut). Throws
   * LedgerError 'INVALID' for a malformed payment, 'DUPLICATE' if the ticket is already there, and
   * LedgerFull when there is no room even after reclaiming dead slots.
   */
  record(input: PaymentInput): void {
    this.fresh();
    const p: Payment =
      input && typeof input === 'object'
        ? { ...input, deviceId: input.deviceId ?? this.deviceId ?? '' }
        : (input as unknown as Payment);
    const bad = paymentProblem(p);
    if (bad) throw new LedgerError('INVALID', bad);
    // (a slim log is a mirror's second one while both agree: the mirror looked the ticket up already)
    if (!this.index.slim && this.locOf(p.emission, p.block, p.number) >= 0) {
      throw new LedgerError('DUPLICATE', `ticket ${p.emission}-${p.block}-${p.number} is already in the ledger`);
    }
    this.mutate(() => {
      if (!this.ensureRoom()) {
        throw new LedgerFull(`ledger full: ${this.index.count} payments held (capacity ${this.capacity}); compact it`);
      }
      this.append(encodePayment(p), keyHash(p.emission, p.block, p.number));
      if (p.paidAtMs > this.latestPaidAtMs) this.latestPaidAtMs = p.paidAtMs;
    });
  }

  /** Makes room for one payment by reclaiming dead slots if needed (drops nothing); false when full. */
  ensureRoom(): boolean {
    this.fresh();
    let ok = false;
    this.mutate(() => {
      if (!this.roomForPayment() && this.deadSlots() > 0) {
        // Reclaim sector by sector, only until there is room: a payment waits for little.
        const keepAll = () => true;
        this.cursorSeq = -1;
        try {
          while (!this.roomForPayment() && !this.step(keepAll).done);
        } catch (e) {
          if (!(e instanceof LedgerFull)) throw e;
        }
        this.cursorSeq = -1;
      }
      ok = this.roomForPayment();
    });
    return ok;
  }

  /**
   * Drops every payment `keep` refuses and reclaims dead slots; returns how many were dropped.
   * Power-safe: a cut at any moment loses no kept payment (a dropped one may come back, to be
   * dropped again by the next compaction).
   */
  compact(keep: (p: Payment) => boolean): number {
    this.fresh();
    if (typeof keep !== 'function') throw new LedgerError('INVALID', 'compact: keep must be a function');
    let dropped = 0;
    this.mutate(() => {
      this.cursorSeq = -1;
      for (;;) {
        const r = this.step(keep);
        dropped += r.dropped;
        if (r.done) break;
      }
    });
    return dropped;
  }

  /**
   * One step of compaction: at most one sector copied and erased (on a real chip about 50–100 ms),
   * for a device that must keep its watchdog fed; call again until `done`. Successive steps make a
   * pass over the sectors oldest first; same guarantees as `compact`.
   */
  compactStep(keep: (p: Payment) => boolean): { dropped: number; done: boolean } {
    this.fresh();
    if (typeof keep !== 'function') throw new LedgerError('INVALID', 'compactStep: keep must be a function');
    let r = { dropped: 0, done: true };
    this.mutate(() => {
      r = this.step(keep);
    });
    return r;
  }

  /**
   * Drops the index's fingerprints, keeping one bit a slot (3.2 KiB for a full log instead of 25.5):
   * what a mirror does with its second log while both logs agree, as the first answers lookups then.
   * The next lookup (`find`) reads the log again to build them back; `record` then skips its
   * duplicate check, which its mirror made.
   */
  slim(): void {
    this.fresh();
    this.index.slimDown();
  }

  /**
   * Every payment held, in order of payment time. Builds them all: ~100 bytes of heap a payment,
   * megabytes when the ledger is full; on the device prefer `some` or `forEach`.
   */
  entries(): Payment[] {
    const out: Payment[] = [];
    this.forEach((p) => {
      out.push(p);
    });
    return out.sort((a, b) => a.paidAtMs - b.paidAtMs);
  }

  /** Calls `fn` for every payment held, one sector at a time (oldest sector first); `false` stops. */
  forEach(fn: (p: Payment) => boolean | void): void {
    this.fresh();
    for (const s of this.inUseByAge()) {
      const data = this.flash.read(s * this.bl, this.bl);
      for (let k = 0; k < this.used[s]; k++) {
        const o = HEADER_SIZE + k * SLOT_SIZE;
        if (this.index.live(s * this.slotsPerSector + k) && slotState(data, o) === 'ok') {
          if (fn(decodePayment(data, o)) === false) return;
        }
      }
    }
  }

  /** True if some payment held satisfies `pred` (stops at the first). */
  some(pred: (p: Payment) => boolean): boolean {
    let found = false;
    this.forEach((p) => {
      if (pred(p)) found = true;
      return !found;
    });
    return found;
  }

  stats(): LedgerStats {
    this.fresh();
    let free = 0;
    for (let s = 0; s < this.sectors; s++) if (this.seq[s] === FREE) free++;
    return {
      sectors: this.sectors,
      slotsPerSector: this.slotsPerSector,
      freeSectors: free,
      deadSlots: this.deadSlots(),
      headSector: this.head,
      indexBytes: this.index.bytes,
    };
  }

  // --- internals ------------------------------------------------------------------------------

  private fresh(): void {
    if (this.stale) this.scan();
  }

  // A flash error (a power cut) leaves RAM unsure of what reached flash: read it again next time.
  private mutate(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof LedgerError)) this.stale = true;
      throw e;
    }
  }

  /** Rebuilds every in-RAM structure from flash. */
  private scan(): void {
    const n = this.sectors;
    this.index = new KeyIndex(n * this.slotsPerSector);
    this.head = -1;
    this.maxSeq = 0;
    this.damage = 0;
    this.digest = 0;
    let top = 0;
    // Read whole below: headerless sectors first (oldest), then by sequence, so a later copy of a key wins.
    // A blank sector (most of a young ledger) is known from one blank check, without reading even its
    // header; on a flash without one, a headerless sector is read whole.
    const order: number[] = [];
    const withHeader: number[] = [];
    for (let s = 0; s < n; s++) {
      const blank = Boolean(this.flash.erased?.(s * this.bl, this.bl));
      this.seq[s] = blank ? FREE : decodeHeader(this.flash.read(s * this.bl, HEADER_SIZE));
      this.used[s] = 0;
      this.live[s] = 0;
      if (this.seq[s] >= 0) {
        top = s + 1;
        withHeader.push(s);
      } else if (!blank) order.push(s);
    }
    this.index.reserve(top * this.slotsPerSector);
    // (the filter knows only the keys read so far: a scan that throws leaves the ledger stale, and
    // every call scans again into a new index before asking it anything)
    this.index.scanning(true);
    withHeader.sort((a, b) => this.seq[a] - this.seq[b]);
    for (const s of withHeader) order.push(s);
    for (const s of order) {
      const data = this.flash.read(s * this.bl, this.bl);
      // Only a valid slot starts with the type byte, so most slots need no closer look; where the
      // used slots end (the last one not erased) matters only for a sector with a header.
      let used = this.slotsPerSector;
      if (this.seq[s] >= 0)
        while (used > 0 && slotState(data, HEADER_SIZE + (used - 1) * SLOT_SIZE) === 'empty') used--;
      let valid = 0;
      let bad = 0;
      for (let k = 0; k < used; k++) {
        const o = HEADER_SIZE + k * SLOT_SIZE;
        if (data[o] === 0xff) continue; // erased, or never committed
        const st = slotState(data, o);
        if (st !== 'ok') {
          if (st === 'bad') bad++;
          continue;
        }
        valid++;
        const at =
          ((data[o + 14] << 8) | data[o + 15]) * 0x100000000 +
          (((data[o + 16] << 24) | (data[o + 17] << 16) | (data[o + 18] << 8) | data[o + 19]) >>> 0);
        if (at > this.latestPaidAtMs) this.latestPaidAtMs = at;
        const e = slotEmission(data, o),
          b = slotBlock(data, o),
          num = slotNumber(data, o);
        const h = keyHash(e, b, num);
        const loc = s * this.slotsPerSector + k;
        const old = this.locOf(e, b, num, h);
        if (old >= 0) {
          this.live[Math.floor(old / this.slotsPerSector)]--;
          this.index.move(old, loc);
        } else {
          this.index.insert(h, loc);
          this.digest = (this.digest + h) | 0;
        }
        this.live[s]++;
      }
      // (garbage in a free sector is no damage: it holds nothing and is erased before use)
      if (this.seq[s] >= 0 || valid > 0) this.damage += bad;
      if (this.seq[s] >= 0) {
        this.used[s] = used;
        if (this.seq[s] >= this.maxSeq) {
          this.maxSeq = this.seq[s];
          this.head = s;
        }
      } else if (valid > 0) {
        this.seq[s] = ORPHAN;
        while (used > 0 && slotState(data, HEADER_SIZE + (used - 1) * SLOT_SIZE) === 'empty') used--;
        this.used[s] = used;
      } else {
        this.seq[s] = FREE;
      }
    }
    this.index.scanning(false);
    this.cursorSeq = -1;
    this.stale = false;
  }

  /** Sectors holding data, oldest first (orphans, then by sequence number). */
  private inUseByAge(): number[] {
    const orphans: number[] = [];
    const rest: number[] = [];
    for (let s = 0; s < this.sectors; s++) {
      if (this.seq[s] === ORPHAN) orphans.push(s);
      else if (this.seq[s] >= 0) rest.push(s);
    }
    rest.sort((a, b) => this.seq[a] - this.seq[b]);
    return orphans.concat(rest);
  }

  /** Slots compaction could give back: dead ones, and the unused tail of a sector other than the head. */
  private deadSlots(): number {
    let d = 0;
    for (let s = 0; s < this.sectors; s++) {
      if (this.seq[s] !== FREE) d += (s === this.head ? this.used[s] : this.slotsPerSector) - this.live[s];
    }
    return d;
  }

  private freeCount(): number {
    let f = 0;
    for (let s = 0; s < this.sectors; s++) if (this.seq[s] === FREE) f++;
    return f;
  }

  /**
   * A payment may go to the head while RESERVE sectors are free, or open a new head if one more is.
   * One free sector lets compaction proceed; the second keeps it possible after a power cut took one.
   */
  private roomForPayment(): boolean {
    const free = this.freeCount();
    if (this.head >= 0 && this.used[this.head] < this.slotsPerSector && free >= RESERVE) return true;
    return free >= RESERVE + 1;
  }

  private slotAddr(loc: number): number {
    const s = Math.floor(loc / this.slotsPerSector);
    return s * this.bl + HEADER_SIZE + (loc - s * this.slotsPerSector) * SLOT_SIZE;
  }

  private readAt(loc: number): Payment | undefined {
    const b = this.flash.read(this.slotAddr(loc), SLOT_SIZE);
    return slotState(b, 0) === 'ok' ? decodePayment(b, 0) : undefined;
  }

  /** Where the live copy of this ticket's payment is, or -1. */
  private locOf(emission: number, block: number, number: number, h = keyHash(emission, block, number)): number {
    if (this.index.slim) this.scan(); // fingerprints back
    return this.index.find(h, (loc) => {
      const b = this.flash.read(this.slotAddr(loc), SLOT_SIZE);
      if (slotState(b, 0) !== 'ok') {
        this.surprises++;
        this.stale = true;
      }
      return slotEmission(b, 0) === emission && slotBlock(b, 0) === block && slotNumber(b, 0) === number;
    });
  }

  /**
   * Erases a free sector and stamps it as the new head. A sector whose erase or header program fails
   * (a bad block, reported by the chip) is skipped until the next scan: the next free one is tried.
   */
  private openHead(): void {
    let err: unknown = new LedgerFull('ledger full: no free sector');
    // Round robin from the current head spreads the wear.
    for (let i = 1; i <= this.sectors; i++) {
      const s = (this.head + i + this.sectors) % this.sectors;
      if (this.seq[s] !== FREE) continue;
      const seq = this.maxSeq + 1;
      try {
        this.flash.eraseBlock(s);
        this.flash.write(encodeHeader(seq), s * this.bl);
      } catch (e) {
        this.seq[s] = BAD;
        err = e;
        continue;
      }
      this.seq[s] = seq;
      this.used[s] = 0;
      this.live[s] = 0;
      this.maxSeq = seq;
      this.head = s;
      return;
    }
    throw err;
  }

  /** Writes the slot of a new payment at the head. */
  private append(slot: Uint8Array, h: number): void {
    if (this.head < 0 || this.used[this.head] >= this.slotsPerSector) this.openHead();
    const s = this.head;
    const loc = s * this.slotsPerSector + this.used[s];
    this.used[s]++; // consumed even if the write is cut short
    this.program(slot, this.slotAddr(loc));
    this.live[s]++;
    this.index.insert(h, loc);
    this.digest = (this.digest + h) | 0;
  }

  /**
   * Programs whole slots at `addr` in two operations: their bodies with the type bytes left erased,
   * then the type bytes (0xFF elsewhere, which programs nothing). A cut or a failed program before
   * the second leaves slots that read 'torn', never damage. Only a committed slot that fails its CRC
   * is damage (docs/ledger.md, *Format*).
   */
  private program(slots: Uint8Array, addr: number): void {
    const commit = new Uint8Array(slots.length).fill(0xff);
    for (let o = 0; o < slots.length; o += SLOT_SIZE) {
      commit[o] = slots[o];
      slots[o] = 0xff;
    }
    this.flash.write(slots, addr);
    try {
      this.flash.write(commit, addr);
    } catch (e) {
      // A payment whose failed commit (a bad block) still reads back whole is recorded: it would be
      // refused as paid later, so record() must not say it failed. (Never for compaction's copies.)
      if (slots.length > SLOT_SIZE || slotState(this.flash.read(addr, SLOT_SIZE), 0) !== 'ok') throw e;
    }
  }

  /** Decides, for every live payment of sector `x`, whether it stays; returns the kept slots' offsets. */
  private sortSector(x: number, data: Uint8Array, keep: (p: Payment) => boolean) {
    const kept: number[] = [];
    const keptLocs: number[] = [];
    const dropLocs: number[] = [];
    let dropSum = 0;
    for (let k = 0; k < this.used[x]; k++) {
      const o = HEADER_SIZE + k * SLOT_SIZE;
      const loc = x * this.slotsPerSector + k;
      // (not live: a superseded copy, or damaged)
      if (!this.index.live(loc) || slotState(data, o) !== 'ok') continue;
      if (keep(decodePayment(data, o))) {
        kept.push(o);
        keptLocs.push(loc);
      } else {
        dropLocs.push(loc);
        dropSum = (dropSum + keyHash(slotEmission(data, o), slotBlock(data, o), slotNumber(data, o))) | 0;
      }
    }
    return { kept, keptLocs, dropLocs, dropSum };
  }

  /** Slots compaction can fill without erasing anything first. */
  private compactRoom(x: number): number {
    const free = this.freeCount();
    if (x === this.head) return free >= 1 ? this.slotsPerSector : -1;
    const headRoom = this.head >= 0 ? this.slotsPerSector - this.used[this.head] : 0;
    return headRoom + (free >= 1 ? this.slotsPerSector : 0);
  }

  // Oldest first, the first sector with something to give back whose kept payments fit where they
  // can go now: copy them to the head, then erase it. A step uses at most one free sector and gives
  // one back, so compaction can always proceed while one sector is free. Sectors found clean are
  // remembered (cursorSeq) until the pass ends, so a pass reads each sector about once.
  private step(keep: (p: Payment) => boolean): { dropped: number; done: boolean } {
    let clean = true;
    let passed = 0;
    for (const x of this.inUseByAge()) {
      if (this.seq[x] >= 0 && this.seq[x] <= this.cursorSeq) continue;
      const data = this.flash.read(x * this.bl, this.bl);
      const sorted = this.sortSector(x, data, keep);
      // Untouched: a sector whose slots all stay, and which is full or the head. (A part-filled
      // older sector only exists after a power cut; it is packed to give its room back.)
      const whole = x === this.head || this.used[x] === this.slotsPerSector;
      if (this.seq[x] !== ORPHAN && sorted.kept.length === this.used[x] && whole) {
        if (clean) {
          this.cursorSeq = this.seq[x];
          // bounded work a step; the pass goes on from the cursor at the next one
          if (++passed >= STEP_SCAN) return { dropped: 0, done: false };
        }
        continue;
      }
      if (sorted.kept.length > this.compactRoom(x)) {
        clean = false;
        continue;
      }
      return { dropped: this.moveOut(x, data, sorted), done: false };
    }
    this.cursorSeq = -1;
    if (!clean) throw new LedgerFull('ledger full: no free sector to compact into');
    return { dropped: 0, done: true };
  }

  /** Copies the kept payments of sector x to the head (a few slots a write), then erases x. */
  private moveOut(
    x: number,
    data: Uint8Array,
    sorted: { kept: number[]; keptLocs: number[]; dropLocs: number[]; dropSum: number },
  ): number {
    const { kept, keptLocs, dropLocs } = sorted;
    if (x === this.head) this.openHead();
    for (let i = 0; i < kept.length;) {
      // No head at all: the log's only sectors lost their headers (orphans, being moved out here).
      if (this.head < 0 || this.used[this.head] >= this.slotsPerSector) this.openHead();
      const s = this.head;
      const n = Math.min(kept.length - i, this.slotsPerSector - this.used[s]);
      const buf = new Uint8Array(n * SLOT_SIZE);
      for (let k = 0; k < n; k++) buf.set(data.subarray(kept[i + k], kept[i + k] + SLOT_SIZE), k * SLOT_SIZE);
      const loc0 = s * this.slotsPerSector + this.used[s];
      this.used[s] += n; // consumed even if the write is cut short
      this.program(buf, this.slotAddr(loc0));
      for (let k = 0; k < n; k++) {
        this.live[s]++;
        this.live[x]--;
        this.index.move(keptLocs[i + k], loc0 + k);
      }
      i += n;
    }
    // Every kept payment of x now has a newer copy: x can go.
    this.flash.eraseBlock(x);
    for (const loc of dropLocs) this.index.remove(loc);
    this.digest = (this.digest - sorted.dropSum) | 0;
    this.seq[x] = FREE;
    this.used[x] = 0;
    this.live[x] = 0;
    return dropLocs.length;
  }
}

function isU16(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff;
}
function isU32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}
