// The fleet registry link (docs/registry.md): a claim asked before paying, offline payments up to the
// offline limit, and the outbox pushed by sync with the device's health; every answer checked against
// the registry's key. An update campaign's order in a sync's answer: the firmware downloads, the ROM writes.
// Compiled apart (tools/build.ts `LAZY_PARTS`): at boot, only on a device configured with a registry
// (firmware/app/registry.ts); what it shares with the core comes from the core (firmware/kit.ts).
import type { DeviceKey, Network, NetworkResponse, Updater } from '../../src/hal.ts';
import { deviceVerify } from '../verify.ts';
import { sha512 } from '../sha512.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { utf8Encode } from '../../src/utf8.ts';
import { Outbox, type OutboxEntry } from '../../src/registry/outbox.ts';
import {
  answerText,
  signRequestWith,
  type PaymentResult,
  type RegistryRequest,
  type RequestKind,
  type TicketRef,
  type UpdateOffer,
} from '../../src/registry/protocol.ts';
import { VERSION } from '../build-info.ts';
import type { Verdict } from '../decide.ts';
import { TEXT, checkingScreen, errorScreen, payLaterScreen, ticketLine } from '../screens.ts';
import type { LinkHost } from '../app/registry.ts';
import { messageOf } from '../app/base.ts';
import {
  LOG_OUTBOX,
  LOG_OUTBOX_DROPPED,
  LOG_REGISTRY_KEY,
  LOG_REGISTRY_NONE,
  LOG_REGISTRY_NO_ANSWER,
  LOG_REGISTRY_NO_OUTBOX,
  LOG_REGISTRY_PAID_BY,
  LOG_REGISTRY_REFUSED,
  LOG_REGISTRY_URL,
  LOG_SYNC_CONFLICT,
  LOG_SYNC_NOT_SENT,
  LOG_SYNC_REFUSED,
  LOG_SYNC_SENT,
  LOG_UPDATE_FAILED,
  LOG_UPDATE_FROM,
  LOG_UPDATE_INSTALLED,
  LOG_UPDATE_OVER,
  LOG_UPDATE_REFUSED,
  LOG_UPDATE_RESTART,
} from '../../src/messages/log-codes.ts';

/** Offline payments pushed in one sync request. */
const SYNC_BATCH = 20;

type Win = Extract<Verdict, { kind: 'win' }>;

/** The registry link of `a` (configured with a registry): null, and said, when the device cannot have one. */
export function openLink(a: LinkHost): Link | null {
  const d = a.dev;
  const rk = d.identity.registryKey;
  if (!d.Network || !d.DeviceKey || !rk) {
    a.say(LOG_REGISTRY_NONE);
    return null;
  }
  const rKey = fromHex(rk);
  let outbox: Outbox;
  try {
    outbox = Outbox.open(new d.Flash({ partition: 'outbox' }));
  } catch (e) {
    a.say(LOG_REGISTRY_NO_OUTBOX, messageOf(e));
    return null;
  }
  return new Link(a, rKey, outbox, new d.DeviceKey({}));
}

export class Link {
  readonly net: Network;
  /** The request out: its tickets (a claim's one, a sync's outbox entries) and nonce check the answer. */
  private inflight: {
    id: number;
    nonce: string;
    kind: RequestKind;
    entries: OutboxEntry[] | TicketRef[];
  } | null = null;
  private nextSyncAt = 0;
  private nonceCount = 0;
  /** Outbox entries (by ticket) of claims granted this boot: their confirmation goes as `confirm`. */
  private readonly toConfirm = new Set<string>();
  /** This boot's nonce prefix, above every earlier boot's (on flash as the time mark before first use). */
  private nonceBase = 0;
  /** The nonce of the last registry request: a granted claim's reference on the receipt. */
  private lastNonce = '';
  /**
   * An update campaign's download (docs/registry.md): the image, the next chunk's offset (-1: all held),
   * the chunk request out, when to ask again; the ROM writes. `updOut` goes with the next sync.
   */
  private upd: { hash: string; at: number; id: number; wait: number } | null = null;
  private updater: Updater | null = null;
  private updOut = '-';
  private restartWanted = false;
  /** When the next sync goes even with nothing to send (a heartbeat carrying the health), and when this boot began. */
  private beatAt = 0;
  private bootAt = 0;

  /** `rKey`: the registry's public key (OTP): every answer must carry its signature. */
  constructor(
    private readonly a: LinkHost,
    private readonly rKey: Uint8Array,
    readonly outbox: Outbox,
    private readonly deviceKey: DeviceKey,
  ) {
    const d = a.dev;
    const url = a.config.registryUrl;
    // Its first 16 hex digits (the host, `saphir sim`, says when it is the published development key).
    a.say(LOG_REGISTRY_KEY, toHex(deviceKey.publicKey).slice(0, 16));
    const net: Network = new d.Network!({
      url,
      onReadable: () =>
        a.guard(() => {
          for (let r = net.read(); r; r = net.read())
            if (this.upd && r.id === this.upd.id) this.onChunk(r);
            else this.onAnswer(r);
        }),
    });
    this.net = net;
    if (d.Updater) this.updater = new d.Updater({});
    this.bootAt = a.mono.now();
    this.beatAt = this.bootAt + 10 * a.config.syncIntervalMs;
    a.say(LOG_REGISTRY_URL, url, outbox.pending.length);
  }

  private request(kind: RequestKind, payments: { code: string; paid_at: number }[]): { id: number; nonce: string } {
    const a = this.a;
    // Trusted time, not the RTC (a clock set back must not make every request stale).
    const now = Math.floor(a.trustedNow());
    if (!this.nonceBase) {
      // Above every nonce of an earlier boot, and on flash before it is used: a power cut replays none.
      this.nonceBase = Math.max(now, a.markStored + 1);
      a.storeMark(this.nonceBase);
    }
    const nonce = `${this.nonceBase}-${++this.nonceCount}`;
    this.lastNonce = nonce;
    const req: RegistryRequest = { kind, device_id: a.deviceId, nonce, sent_at: now, payments };
    if (kind === 'sync') {
      const id = a.dev.identity;
      req.health = {
        fw: id.version || VERSION,
        slot: id.slot || '-',
        image: id.imageHash,
        notice: a.noticeVersion(),
        ledger: a.ledger.count,
        outbox: this.outbox.pending.length,
        boot: id.bootReason || 'power-on',
        up: Math.floor((a.mono.now() - this.bootAt) / 1000),
        errors: a.stats.errors,
        update: this.updOut,
      };
    }
    const body = JSON.stringify({
      ...signRequestWith(req, (m) => this.deviceKey.sign(m), sha512),
      // Not signed: it only spares the registry sending a notice this device holds or refused.
      notice_version: Math.max(a.noticeVersion(), a.noticeRefused),
    });
    return { id: this.net.request(`/v1/${kind}`, body, a.config.registryTimeoutMs), nonce };
  }

  /** OK on a payable win: ask the registry first; its answer (or its silence) decides. */
  claim(v: Win, code: string): void {
    const a = this.a;
    const r = this.request('claim', [{ code, paid_at: Math.floor(a.trustedNow()) }]);
    this.inflight = { ...r, kind: 'claim', entries: [v.ticket] };
    a.display.show(checkingScreen(v.prizeEur, a.lang));
    a.state = { kind: 'claiming', verdict: v, code, until: a.mono.now() + a.config.registryTimeoutMs + 1000 };
  }

  /** The network never answered the claim (it must, with status 0): give up on it and decide offline. */
  timeout(v: Win, code: string): void {
    this.inflight = null;
    this.offline(v, code, 'timeout');
  }

  /** At each tick: the outbox pushed when due, an update's download carried on. */
  tick(now: number): void {
    this.sync(now);
    this.download(now);
  }

  /** Whether `j` is the registry's signed answer to request `f`, a result a ticket in `f`'s order. */
  private authentic(
    j: { results: PaymentResult[]; update?: UpdateOffer; signature?: unknown },
    f: { nonce: string; entries: TicketRef[] },
  ) {
    try {
      const rs = j.results;
      if (rs.some((x, i) => x.result !== 'invalid' && ticketLine(x.ticket) !== ticketLine(f.entries[i]))) return false;
      const text = utf8Encode(answerText({ device_id: this.a.deviceId, nonce: f.nonce }, rs, j.update));
      return deviceVerify(fromHex(j.signature as string), text, this.rKey);
    } catch {
      return false;
    }
  }

  private onAnswer(r: NetworkResponse): void {
    const a = this.a;
    const f = this.inflight;
    if (!f || r.id !== f.id) return; // an answer to a request given up on
    this.inflight = null;
    const s = a.state;
    let results: PaymentResult[] | null = null;
    let offer: UpdateOffer | undefined;
    let error = '';
    if (r.status === 200) {
      let j: { results?: PaymentResult[]; notice?: unknown } | null = null;
      try {
        j = JSON.parse(r.body);
      } catch {
        // not JSON: handled as no answer below
      }
      // The operator signed it; the registry only carries it.
      if (j && j.notice !== undefined) a.takeNotice(j.notice, 'registry');
      if (j && Array.isArray(j.results)) {
        if (this.authentic(j as { results: PaymentResult[] }, f)) {
          results = j.results;
          offer = (j as { update?: UpdateOffer }).update;
        } else error = 'forged';
      }
    } else if (r.status >= 400 && r.status < 500) {
      try {
        error = String((JSON.parse(r.body) as { error?: string }).error || r.status);
      } catch {
        error = String(r.status);
      }
    }
    if (f.kind !== 'claim') {
      this.onSynced(f.entries as OutboxEntry[], results, error || (results ? '' : `status ${r.status}`));
      if (results) this.onUpdateAnswer(offer);
      return;
    }
    if (s.kind !== 'claiming') return;
    const got = results && results.length === 1 ? results[0] : null;
    if (got && got.result === 'granted') {
      // Two-phase: the outbox entry is the confirmation, pushed by the next sync (retried until heard).
      // A full outbox throws here: not paid, since the registry could never hear it was.
      this.queue(s.verdict, s.code);
      this.toConfirm.add(ticketLine(s.verdict.ticket));
      this.nextSyncAt = 0;
      return a.pay(s.verdict, false, this.lastNonce);
    }
    if (got && got.result === 'already_paid') {
      a.say(LOG_REGISTRY_PAID_BY, ticketLine(s.verdict.ticket), got.by.device_id);
      return a.showVerdict({
        kind: 'already-paid',
        ticket: s.verdict.ticket,
        prizeEur: s.verdict.prizeEur,
        paid: {
          prizeEur: s.verdict.prizeEur,
          paidAtMs: got.by.paid_at,
          deviceId: String(got.by.device_id).slice(0, 16),
        },
      });
    }
    if (got || error) {
      // The registry heard us and said no (the ticket, or this device), or an answer it did not sign
      // came: never paid offline then (whoever forged it would choose that).
      const why = got && got.result === 'invalid' ? got.reason : error;
      a.say(LOG_REGISTRY_REFUSED, why);
      return a.shown(errorScreen(a.lang, TEXT[a.lang][error === 'forged' ? error : 'refused']), 'refused');
    }
    this.offline(s.verdict, s.code, `status ${r.status}`);
  }

  /** Onto the outbox, before the ledger: a cut between the two leaves an entry the sync drops. */
  private queue(v: Win, code: string): void {
    const t = v.ticket;
    this.outbox.add({
      emission: t.emission,
      block: t.block,
      number: t.number,
      paidAtMs: Math.floor(this.a.trustedNow()),
      code,
    });
  }

  /** No answer from the registry: pay offline up to the offline limit, else not now. */
  private offline(v: Win, code: string, why: string): void {
    const a = this.a;
    a.say(LOG_REGISTRY_NO_ANSWER, why);
    if (v.prizeEur <= a.config.offlineLimitEur) {
      try {
        this.queue(v, code);
        return a.pay(v, true);
      } catch (e) {
        a.say(LOG_OUTBOX, messageOf(e));
      }
    }
    a.shown(payLaterScreen(v.prizeEur, a.lang), 'refused');
    a.note('not-payable', v, a.trustedNow());
  }

  /** Pushes offline payments while some wait, the device is idle and nothing else is asked. */
  private sync(now: number): void {
    const a = this.a;
    const box = this.outbox;
    const k = a.state.kind;
    if (this.inflight || (k !== 'ready' && k !== 'shown') || now < this.nextSyncAt) return;
    this.nextSyncAt = now + a.config.syncIntervalMs;
    const batch: OutboxEntry[] = [];
    const unpaid: OutboxEntry[] = [];
    // Confirmations of claims granted this boot go on their own (`confirm`), the rest as a `sync` (which
    // confirms too: after a reboot every entry goes that way); one kind a batch, in outbox order.
    let confirm: boolean | null = null;
    for (const e of box.pending) {
      if (batch.length >= SYNC_BATCH) break;
      if (!a.ledger.find(e)) {
        unpaid.push(e);
        continue;
      }
      const c = this.toConfirm.has(ticketLine(e));
      if (confirm === null) confirm = c;
      else if (c !== confirm) break;
      batch.push(e);
    }
    if (unpaid.length) {
      a.say(LOG_OUTBOX_DROPPED, unpaid.length);
      box.markSynced(unpaid);
      a.ready(); // the count on the screen
    }
    // Nothing to send: a heartbeat with the health, every 10 sync intervals.
    if (!batch.length && now < this.beatAt) return;
    this.beatAt = now + 10 * a.config.syncIntervalMs;
    this.nextSyncAt = now + a.config.syncIntervalMs;
    const kind = confirm ? 'confirm' : 'sync';
    const r = this.request(
      kind,
      batch.map((e) => ({ code: e.code, paid_at: e.paidAtMs })),
    );
    this.inflight = { ...r, kind, entries: batch };
  }

  private onSynced(entries: OutboxEntry[], results: PaymentResult[] | null, error: string): void {
    const a = this.a;
    if (!results || results.length !== entries.length) {
      a.say(LOG_SYNC_NOT_SENT, this.outbox.pending.length, error);
      return;
    }
    results.forEach((r, i) => {
      const t = entries[i];
      if (r.result === 'conflict') a.say(LOG_SYNC_CONFLICT, ticketLine(t), r.by.device_id);
      else if (r.result === 'invalid') a.say(LOG_SYNC_REFUSED, ticketLine(t), r.reason);
    });
    if (!entries.length) return;
    this.outbox.markSynced(entries);
    for (const e of entries) this.toConfirm.delete(ticketLine(e));
    const left = this.outbox.pending.length;
    a.say(LOG_SYNC_SENT, entries.length, left);
    if (left > 0) this.nextSyncAt = 0; // go on at the next tick
    if (a.state.kind === 'ready') a.ready();
  }

  // --- update campaigns: the firmware downloads, the ROM writes (rom/update.ts) ----------------------

  /** A sync's answer was heard: the outcome it carried is known; an order starts (or resumes) a download. */
  private onUpdateAnswer(o: UpdateOffer | undefined): void {
    if (this.updOut.slice(-10) === ':installed') this.restartWanted = true;
    this.updOut = '-';
    if (!o || this.upd || !this.updater || this.restartWanted) return;
    const r = this.updater.begin(fromHex(o.manifest), o.size);
    if (r.ok) this.a.say(LOG_UPDATE_FROM, o.campaign, r.next);
    else this.a.say(LOG_UPDATE_REFUSED, o.campaign, r.detail);
    if (r.ok) this.upd = { hash: o.hash, at: r.next!, id: 0, wait: 0 };
    else this.updateDone(o.hash, 'failed:' + r.reason);
  }

  private updateDone(hash: string, out: string): void {
    this.upd = null;
    this.updOut = `${hash}:${out}`;
    this.beatAt = this.nextSyncAt = 0; // said at once
  }

  /** At each tick while idle (PRÊT): the next chunk asked, the slot finished, or the restart into it. */
  private download(now: number): void {
    const a = this.a;
    const u = this.upd;
    if (a.state.kind !== 'ready') return;
    if (this.restartWanted) {
      a.say(LOG_UPDATE_RESTART);
      this.restartWanted = false;
      return this.updater!.restart();
    }
    if (!u || u.id || now < u.wait) return;
    if (u.at < 0) {
      const f = this.updater!.finish();
      if (f.ok) a.say(LOG_UPDATE_INSTALLED, f.version);
      else a.say(LOG_UPDATE_FAILED, f.detail);
      return this.updateDone(u.hash, f.ok ? 'installed' : 'failed:' + f.reason);
    }
    u.id = this.net.request('/v1/chunk', `{"hash":"${u.hash}","offset":${u.at}}`, a.config.registryTimeoutMs);
  }

  /** A chunk came (the ROM programs it), or not: asked again later; 410/404: the campaign is over. */
  private onChunk(r: NetworkResponse): void {
    const u = this.upd!;
    u.id = 0;
    if (r.status === 410 || r.status === 404) {
      this.a.say(LOG_UPDATE_OVER);
      this.upd = null;
      return;
    }
    let w: { ok: boolean; reason?: string; next?: number } = { ok: false };
    try {
      if (r.status === 200) w = this.updater!.write(u.at, fromHex(r.body));
    } catch {
      // not hex: asked again
    }
    if (w.ok) u.at = w.next!;
    // Not the header or TLV area the signed manifest named: the image is not the one ordered.
    else if (w.reason === 'mismatch') this.updateDone(u.hash, 'failed:mismatch');
    else u.wait = this.a.mono.now() + this.a.config.syncIntervalMs;
  }
}
