// The fleet explorer's reference model (docs/explorer.md, "Fleet mode"), written apart from the firmware
// and the registry: it knows the tickets it generated (their prize), the offline limit, and reads each
// device as a person and an auditor would (its display, its ledger as the simulator reads it back) and
// the registry as its operator would (who holds each ticket, which payments are conflicts).
import type { Step } from '../scenario.ts';
import type { TicketSpec } from '../tickets.ts';
import { classify, type Violation } from './model.ts';
import { claimEndMs } from './deadline.ts';
import type { NoticeRecord } from './notice-reader.ts';

/** The fleet invariants, numbered after the single-device ones (4: back to PRÊT, no fault, is shared). */
export const FLEET_INVARIANTS: Record<number, string> = {
  4: 'every step plays; no VM fault, no reset nobody asked for',
  7: 'online, a ticket is paid at most once in the fleet, by the device the registry holds it for (clones and rolled-back copies of one device: see 9)',
  8: 'offline payments are bounded by the offline limit (a ticket above it is never paid twice)',
  9: 'every double payment is reported once all devices are back online and synced: a conflict between two devices, a regrant (reserved or paid-twice) for one device id paying twice (a clone, a rolled-back device)',
  10: 'nothing lost, nothing counted twice: every payment is in the registry once, as held or as a conflict',
  11: 'a device never runs an image below its anti-rollback counter',
  12: "an update campaign's phase starts only once the previous one is done, and never after max-failures failures",
  13: "a ticket is never offered for payment nor paid once its claim period is over by the operator's notice the device holds (the explorer's own deadline arithmetic), and never TICKET EXPIRÉ before",
  14: 'a device never adopts an older notice nor one the operator did not sign: the version it holds never goes down, and every notice on its flash is one the operator signed',
};

/** A notice the schedule drew: the explorer signed it, so it knows who did (the model reads no key). */
export interface DrawnNotice {
  /** The signed notice's text, as the registry or the technician hands it over. */
  text: string;
  signature: string;
  version: number;
  /** Emission 1's closing date. */
  closes: string;
  /** Signed by another key than the operator's. */
  foreign: boolean;
}

/** A win, PAYÉ or TICKET EXPIRÉ screen, the device's clock then, and the notice records its flash held. */
export interface TimedScreen {
  screen: string[];
  clockMs: number;
  records: NoticeRecord[];
}

/** What invariant 12 reads of a campaign (the registry's status). */
export interface CampaignView {
  name: string;
  max_failures: number;
  devices: { device_id: string; phase: number; state: string }[];
}

/**
 * Invariant 12 on a campaign's final state (a device's state never goes back to `pending`, so the end
 * shows every phase that ever started): a device of phase q left `pending` only if every device of the
 * earlier phases is done (confirmed or failed) and they failed fewer than `max_failures` times.
 */
export function campaignProblem(c: CampaignView): string | null {
  const done = (st: string) => st === 'confirmed' || st === 'failed';
  for (const d of c.devices) {
    if (d.state === 'pending') continue;
    const before = c.devices.filter((x) => x.phase < d.phase);
    const open = before.find((x) => !done(x.state));
    if (open)
      return `${c.name}: ${d.device_id} (phase ${d.phase}) is ${d.state} while ${open.device_id} (phase ${open.phase}) is ${open.state}`;
    const failed = before.filter((x) => x.state === 'failed').length;
    if (failed >= c.max_failures)
      return `${c.name}: ${d.device_id} (phase ${d.phase}) is ${d.state} after ${failed} failure(s) in earlier phases (max ${c.max_failures})`;
  }
  return null;
}

type Ref = { emission: number; block: number; number: number };
const key = (t: Ref) => `${t.emission}-${t.block}-${t.number}`;

/** The words the model reads on a screen (French: fleet schedules run in French). */
const PAID = 'PAYÉ';
const OFFLINE = 'hors ligne';
const TO_SEND = /(\d+) à transmettre/;

export interface DeviceView {
  id: string;
  /** Screens shown on this device during the step. */
  screens: string[][];
  /** The last screen the device shows (empty while off). */
  screen: string[];
  /** Its ledger, when the chip was written since the last read. */
  ledger?: { emission: number; block: number; number: number; prizeEur: number }[];
  /** The win, PAYÉ and TICKET EXPIRÉ screens of the step, with the clock and notice records of each. */
  timed?: TimedScreen[];
  /** The notice records on its flash after the step. */
  notices?: NoticeRecord[];
}

/** What the model knows of the operator notices (invariants 13 and 14). */
export interface NoticeFacts {
  drawn: readonly DrawnNotice[];
  /** Emission 1's closing date in the configuration (before any notice). */
  closingDate: string;
  /** How long after OK a payment may still show (the registry's answer or its timeout): PAYÉ later than the end by less is a claim made in time. */
  paySlackMs: number;
}

export interface RegistryView {
  holders: { emission: number; block: number; number: number; device_id: string }[];
  conflicts: { emission: number; block: number; number: number; device_id: string }[];
  /** The registry's regrants (kind: refused, reserved, paid-twice); absent: none known. */
  regrants?: { emission: number; block: number; number: number; device_id: string; kind: string }[];
}

/** One payment made (cash handed over): the ticket, the device id it was paid under, and by which board. */
interface Paid {
  k: string;
  id: string;
  board: string;
  /** Taken off its ledger (and outbox) by a rollback: the registry may never hear of it. */
  erased: boolean;
}

export class FleetViolation extends Error {
  constructor(readonly v: Violation) {
    super(`invariant ${v.invariant}, step ${v.step}: ${v.message}`);
  }
}

export class FleetModel {
  private readonly prize = new Map<string, number>();
  /** Per device: the tickets its ledger holds. */
  private readonly held = new Map<string, Map<string, Ref>>();
  /** The device that paid each ticket online (shown PAYÉ without "hors ligne"). */
  private readonly onlineBy = new Map<string, string>();
  /** Per device: tickets on which OK was pressed (a claim may have reached the registry). */
  private readonly asked = new Map<string, Set<string>>();
  private readonly lastScan = new Map<string, string>();
  /** The device id each board pays under: its own, or the one it was cloned from. */
  private readonly idOf = new Map<string, string>();
  /** Every payment made, even those a rollback took off a ledger since. */
  private readonly paid: Paid[] = [];
  /** Double payments the registry cannot see: one of them erased by a rollback before it was heard. */
  erasedDoubles = 0;
  /** Holds in the registry for a ticket the holder never paid (a granted claim whose answer was lost). */
  phantomHolds = 0;
  payments = { online: 0, offline: 0, unknown: 0 };
  /** Notices taken (a device's version rising), AVIS REFUSÉ screens, TICKET EXPIRÉ verdicts. */
  noticeCounts = { adopted: 0, refused: 0, expired: 0 };
  /** Per device: the version of the operator's notice its flash holds (0: none). */
  private readonly noticeHeld = new Map<string, number>();
  private readonly bySignature = new Map<string, DrawnNotice>();
  private readonly parsed = new Map<
    string,
    { version: number; closes: string | undefined; signature: string } | null
  >();
  private readonly notices: NoticeFacts;

  constructor(
    tickets: readonly TicketSpec[],
    devices: readonly string[],
    private readonly offlineLimitEur: number,
    notices: NoticeFacts = { drawn: [], closingDate: '2100-01-01', paySlackMs: 0 },
  ) {
    for (const t of tickets) this.prize.set(key(t), t.prize);
    for (const d of devices) {
      this.held.set(d, new Map());
      this.asked.set(d, new Set());
      this.idOf.set(d, d);
      this.noticeHeld.set(d, 0);
    }
    this.notices = notices;
    for (const n of notices.drawn) this.bySignature.set(n.signature, n);
  }

  /**
   * The operator's notice in force by the flash's records: the highest version among them (0: none). Every
   * record must be a notice the schedule drew signed with the operator's key, as it was drawn (14).
   */
  private inForce(index: number, id: string, records: readonly NoticeRecord[]): DrawnNotice | null {
    let best: DrawnNotice | null = null;
    for (const r of records) {
      let p = this.parsed.get(r.text);
      if (p === undefined) {
        try {
          const j = JSON.parse(r.text) as {
            notice: { version: number; emissions: { number: number; closes?: string }[] };
            signature: string;
          };
          p = {
            version: j.notice.version,
            closes: j.notice.emissions.find((e) => e.number === 1)?.closes,
            signature: j.signature,
          };
        } catch {
          p = null;
        }
        this.parsed.set(r.text, p);
      }
      const d = p && this.bySignature.get(p.signature);
      if (!p || !d || d.foreign)
        this.fail(
          14,
          index,
          `${id}'s flash holds notice version ${r.version}, which the operator did not sign${d?.foreign ? ' (signed by a foreign key)' : ''}`,
          [{ kind: 'expect-notice', line: 0, on: id, version: this.noticeHeld.get(id)! }],
        );
      if (p.version !== d.version || r.version !== d.version || p.closes !== d.closes)
        this.fail(14, index, `${id}'s flash holds notice version ${r.version}, not as the operator signed it`);
      if (!best || d.version > best.version) best = d;
    }
    return best;
  }

  /** Invariants 14 (the notice held) and 13 (deadlines by it), on one device after a step. */
  private noticeChecks(index: number, step: Step, v: DeviceView): void {
    const before = this.noticeHeld.get(v.id)!;
    if (v.notices) {
      const now = this.inForce(index, v.id, v.notices)?.version ?? 0;
      // A rollback or a clone (the attacker's) puts another flash on the board: its notice is the copy's.
      if (now < before && !((step.kind === 'rollback' || step.kind === 'clone') && step.on === v.id))
        this.fail(14, index, `the notice version ${v.id} holds went down from ${before} to ${now}`, [
          { kind: 'expect-notice', line: 0, on: v.id, version: before },
        ]);
      if (now > before) this.noticeCounts.adopted++;
      this.noticeHeld.set(v.id, now);
    }
    for (const s of v.screens) if ((s[0] ?? '').trim() === 'AVIS REFUSÉ') this.noticeCounts.refused++;
    // "AVIS n° N appliqué": only a notice above the one held, and one the operator signed.
    let cur = before;
    for (const s of v.screens) {
      const m = /^AVIS n° (\d+)$/.exec((s[0] ?? '').trim());
      if (!m || !(s[1] ?? '').includes('appliqué')) continue;
      const n = Number(m[1]);
      if (n <= cur || !this.notices.drawn.some((d) => !d.foreign && d.version === n))
        this.fail(
          14,
          index,
          `${v.id} applied notice ${n} while holding ${cur}${n > cur ? ': the operator signed no notice ' + n : ''}`,
        );
      cur = n;
    }
    for (const t of v.timed ?? []) {
      const kind = classify(t.screen, 'fr');
      if (kind === 'expired') this.noticeCounts.expired++;
      const n = this.inForce(index, v.id, t.records);
      const closes = n ? n.closes : this.notices.closingDate;
      const end = claimEndMs(closes);
      const by = n ? `notice ${n.version}: closed ${closes}` : `configuration: closes ${closes}`;
      const at = `${new Date(t.clockMs).toISOString()}, its claim period ended ${new Date(end).toISOString()} (${by})`;
      if (kind === 'win' && t.clockMs - 1000 >= end)
        this.fail(13, index, `${v.id} offered a ticket for payment at ${at}`, [
          { kind: 'expect-display', line: 0, on: v.id, matches: /^(?![\s\S]*GAGNANT)/, withinMs: 0 },
        ]);
      if (kind === 'paid' && t.clockMs - this.notices.paySlackMs >= end)
        this.fail(13, index, `${v.id} paid a ticket at ${at}`, this.ledgerCount(v.id));
      if (kind === 'expired' && t.clockMs < end)
        this.fail(13, index, `${v.id} showed TICKET EXPIRÉ at ${at.replace('ended', 'ends')}`, [
          { kind: 'expect-display', line: 0, on: v.id, matches: /^(?![\s\S]*TICKET EXPIRÉ)/, withinMs: 0 },
        ]);
    }
  }

  private fail(invariant: number, step: number, message: string, expect?: Step[]): never {
    throw new FleetViolation({ invariant, step, message, expect });
  }

  /** After step `index` (1-based) `step`: what each device showed and holds. */
  observe(index: number, step: Step, views: readonly DeviceView[]): void {
    const on = step.on;
    if (step.kind === 'scan' && step.ticket && on) this.lastScan.set(on, key(step.ticket));
    if (step.kind === 'press' && step.key === 'OK' && on && this.lastScan.has(on))
      this.asked.get(this.idOf.get(on)!)!.add(this.lastScan.get(on)!);
    if (step.kind === 'clone' && on) this.idOf.set(on, this.idOf.get(step.of)!);
    for (const v of views) this.noticeChecks(index, step, v);
    for (const v of views) {
      if ((step.kind === 'rollback' || step.kind === 'clone') && v.id === on && v.ledger) {
        // The board's flash was replaced: its ledger is what the copy holds; what it lost stays paid (a
        // clone's copy is another device's: every payment of the board's own is gone).
        const now = new Map(v.ledger.map((p) => [key(p), p] as const));
        for (const k of this.held.get(v.id)!.keys())
          if (!now.has(k) || step.kind === 'clone')
            for (const p of this.paid) if (p.board === v.id && p.k === k) p.erased = true;
        this.held.set(v.id, now);
        continue;
      }
      const shownPaid = v.screens.filter((s) => (s[0] ?? '').trim() === PAID);
      if (!v.ledger) {
        if (shownPaid.length)
          this.fail(10, index, `${v.id} showed PAYÉ and its ledger holds no new payment`, this.ledgerCount(v.id));
        continue;
      }
      const before = this.held.get(v.id)!;
      const now = new Map(v.ledger.map((p) => [key(p), p] as const));
      for (const k of before.keys())
        if (!now.has(k)) this.fail(10, index, `the payment of ${k} vanished from ${v.id}'s ledger`);
      const fresh = v.ledger.filter((p) => !before.has(key(p)));
      if (shownPaid.length > fresh.length)
        this.fail(10, index, `${v.id} showed PAYÉ and its ledger holds no new payment`, this.ledgerCount(v.id));
      const expectCount = this.ledgerCount(v.id);
      for (const p of fresh) {
        const k = key(p);
        const prize = this.prize.get(k);
        if (prize === undefined || p.prizeEur !== prize)
          this.fail(
            10,
            index,
            `${v.id}'s ledger holds ${k} at ${p.prizeEur} €, not a ticket of the schedule at its prize`,
          );
        // A payment is shown PAYÉ in the step that records it, unless the power went in between.
        const mode = shownPaid.length
          ? shownPaid.some((s) => s.some((l) => l.includes(OFFLINE)))
            ? 'offline'
            : 'online'
          : 'unknown';
        this.payments[mode]++;
        if (mode === 'offline' && prize > this.offlineLimitEur)
          this.fail(
            8,
            index,
            `${v.id} paid ${k} (${prize} €) offline, above the offline limit of ${this.offlineLimitEur} €`,
            expectCount,
          );
        // Not shown (a cut) and above the limit: it can only have been granted online.
        const id = this.idOf.get(v.id)!;
        if (mode === 'online' || (mode === 'unknown' && prize > this.offlineLimitEur)) {
          const other = this.onlineBy.get(k);
          if (other && other !== id)
            this.fail(7, index, `${v.id} paid ${k} online, already paid online by ${other}`, expectCount);
          this.onlineBy.set(k, id);
        }
        this.paid.push({ k, id, board: v.id, erased: false });
        before.set(k, p);
      }
    }
  }

  /** A replay's check: device `id`'s ledger holds what the model counted before this step. */
  private ledgerCount(id: string): Step[] {
    return [{ kind: 'expect-ledger', line: 0, on: id, count: this.held.get(id)!.size, withinMs: 0 }];
  }

  /**
   * After the settle (every network up, the registry up, time for every sync): the registry must hold
   * each payment once, and report every double payment as a conflict.
   */
  final(index: number, views: readonly DeviceView[], reg: RegistryView): void {
    const holder = new Map(reg.holders.map((h) => [key(h), h.device_id] as const));
    /** Conflict rows per ticket and id: one a payment (a clone and its original paying under one id: two). */
    const conflictRows = new Map<string, number>();
    for (const c of reg.conflicts) {
      const ki = `${key(c)}@${c.device_id}`;
      conflictRows.set(ki, (conflictRows.get(ki) ?? 0) + 1);
    }
    const regrant = new Set(
      (reg.regrants ?? []).filter((r) => r.kind !== 'refused').map((r) => `${key(r)}@${r.device_id}`),
    );
    // Per ticket, the device ids that paid it (a payment counts unless a rollback erased it); and every
    // id that ever paid it (erased ones too: the registry may have heard of those).
    const payers = new Map<string, string[]>();
    const everPaid = new Map<string, Set<string>>();
    for (const p of this.paid) {
      if (!everPaid.has(p.k)) everPaid.set(p.k, new Set());
      everPaid.get(p.k)!.add(p.id);
      if (!p.erased && !(payers.get(p.k) ?? []).includes(p.id)) payers.set(p.k, [...(payers.get(p.k) ?? []), p.id]);
    }
    /** Each ticket and id's payments (erased ones too). */
    const times = new Map<string, Paid[]>();
    for (const p of this.paid) times.set(`${p.k}@${p.id}`, [...(times.get(`${p.k}@${p.id}`) ?? []), p]);
    // What the registry should say: one holder a paid ticket (the phantom holds it has besides), and a
    // conflict for every other payer.
    let phantoms = 0;
    for (const [k, h] of holder) if (!everPaid.get(k)?.has(h)) phantoms++;
    let conflicts = 0;
    for (const [k, ds] of payers) {
      const h = holder.get(k);
      for (const d of ds)
        if (h !== undefined && d !== h) conflicts += times.get(`${k}@${d}`)!.filter((p) => !p.erased).length;
      if (h === undefined) conflicts += ds.length - 1;
    }
    const expect: Step[] = [
      {
        kind: 'expect-registry',
        line: 0,
        claims: new Set([...payers.keys(), ...holder.keys()]).size,
        conflicts,
        withinMs: 0,
      },
    ];
    // One device id paying a ticket twice (a clone, a rolled-back copy): a regrant when that id holds it, a
    // conflict a payment when another does; unless one of the payments was erased by a rollback (its only
    // record gone, nothing can report it: counted).
    for (const [ki, ps] of times) {
      if (ps.length < 2) continue;
      if (ps.some((p) => p.erased)) {
        this.erasedDoubles++;
        continue;
      }
      const [k, id] = ki.split('@');
      if (holder.get(k) !== id ? (conflictRows.get(ki) ?? 0) < ps.length : !regrant.has(ki))
        this.fail(
          9,
          index,
          `${ki.replace('@', ' was paid ' + ps.length + ' times under ')} (boards ${ps.map((p) => p.board).join(', ')}) and the registry reports ${holder.get(k) !== id ? `${conflictRows.get(ki) ?? 0} conflict(s)` : 'no regrant'}`,
          expect,
        );
    }
    for (const v of views) {
      const m = TO_SEND.exec(v.screen.join(' '));
      if (m)
        this.fail(
          9,
          index,
          `${v.id} still has ${m[1]} offline payment(s) to send with the network and the registry up`,
          // A replay checks that nothing waits any more on that device.
          [{ kind: 'expect-display', line: 0, on: v.id, matches: /^(?![\s\S]*à transmettre)/, withinMs: 0 }],
        );
    }
    for (const [k, ds] of payers) {
      if (ds.length < 2) continue;
      if (this.prize.get(k)! > this.offlineLimitEur)
        this.fail(
          8,
          index,
          `${k} (${this.prize.get(k)} €, above the offline limit) was paid by ${ds.join(' and ')}`,
          expect,
        );
      for (const d of ds)
        if (d !== holder.get(k) && !conflictRows.has(`${k}@${d}`))
          this.fail(
            9,
            index,
            `${k} was paid by ${ds.join(' and ')}: ${d}'s payment is not reported as a conflict`,
            expect,
          );
    }
    for (const [k, ds] of payers)
      for (const d of ds) {
        const h = holder.get(k) === d;
        const c = conflictRows.has(`${k}@${d}`);
        if (!h && !c) this.fail(10, index, `${d}'s payment of ${k} is not in the registry (lost)`, expect);
        if (h && c) this.fail(10, index, `${d}'s payment of ${k} is both held and a conflict (counted twice)`, expect);
      }
    for (const c of reg.conflicts)
      if (!everPaid.get(key(c))?.has(c.device_id))
        this.fail(
          10,
          index,
          `the registry has a conflict of ${c.device_id} for ${key(c)}, which it never paid`,
          expect,
        );
    for (const [k, d] of holder) {
      if (everPaid.get(k)?.has(d)) continue;
      // A claim granted whose answer never came back (lost, or the power went): the registry holds the
      // ticket for a device that did not pay it. Allowed only where that device asked.
      if (!this.asked.get(d)?.has(k))
        this.fail(10, index, `the registry holds ${k} for ${d}, which never asked for it`, expect);
    }
    for (const [k, d] of this.onlineBy)
      if (holder.get(k) !== d)
        this.fail(7, index, `${d} paid ${k} online but the registry holds it for ${holder.get(k) ?? 'nobody'}`, expect);
    this.phantomHolds = phantoms;
  }
}
