// The fleet registry link (docs/registry.md): a claim asked before paying, offline payments up to the
// offline limit, and the outbox pushed by sync with the device's health; every answer checked against
// the registry's key. An update campaign's order in a sync's answer: the firmware downloads, the ROM writes.
import type { DeviceKey, Flash, Network, NetworkResponse, Updater } from '../../src/hal.ts';
import type { Config } from '../../src/config.ts';
import { deadlines } from '../deadline.ts';
import { parisMidnightUtc } from '../../src/claim.ts';
import {
  applyNotice,
  loadNotice,
  noticeRefusal,
  noticeHolidays,
  parseSignedNotice,
  storeNotice,
  type StoredNotice,
} from '../../src/notice.ts';
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
import { TEXT, checkingScreen, errorScreen, noticeScreen, payLaterScreen, ticketLine } from '../screens.ts';
import { Screens } from './screens.ts';
import { messageOf } from './base.ts';
import {
  LOG_NOTICE,
  LOG_NOTICE_APPLIED,
  LOG_NOTICE_REFUSED,
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

export abstract class RegistryLink extends Screens {
  /** The fleet registry (docs/registry.md): null when none is configured or the device has no network. */
  protected net: Network | null = null;
  private deviceKey: DeviceKey | null = null;
  protected outbox: Outbox | null = null;
  /** The request out: its tickets (a claim's one, a sync's outbox entries) and nonce check the answer. */
  protected inflight: {
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
  /** The registry's public key (OTP): every answer must carry its signature. */
  private rKey!: Uint8Array;
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
  /** The operator's notice in force (docs/operations.md), its partition, the key it must verify with. */
  private notice: StoredNotice | null = null;
  private noticeFlash: Flash | null = null;
  private oKey: Uint8Array | null = null;
  /** The highest notice version refused since boot: the registry is not asked for it again. */
  private noticeRefused = 0;
  /** The configuration as stored, before a notice replaces its emissions and limits. */
  private stored!: Config;

  /** Records the payment (firmware/app.ts). */
  protected abstract pay(v: Extract<Verdict, { kind: 'win' }>, offline?: boolean, registryRef?: string): void;

  /** At boot: the newest notice on flash that verifies, applied over the configuration. */
  protected openNotice(): void {
    const d = this.dev;
    this.stored = this.config;
    const ok = d.identity.operatorKey;
    this.oKey = ok ? fromHex(ok) : null;
    try {
      this.noticeFlash = new d.Flash({ partition: 'notice' });
      this.notice = loadNotice(this.noticeFlash, this.oKey, deviceVerify);
    } catch (e) {
      this.say(LOG_NOTICE, messageOf(e)); // a device without the partition takes none
    }
    this.applyNotice();
  }

  protected noticeVersion(): number {
    return this.notice ? this.notice.signed.notice.version : 0;
  }

  /** The configuration with the notice's emissions and limits over it; the deadlines with its holidays. */
  private applyNotice(): void {
    const n = this.notice && this.notice.signed.notice;
    this.config = n ? applyNotice(this.stored, n) : this.stored;
    this.deadlines = deadlines(this.config.emissions, n ? noticeHolidays(n, this.config.department) : []);
    this.sales = new Map();
    if (n) for (const e of n.emissions) this.sales.set(e.number, parisMidnightUtc(e.on_sale));
  }

  /** A notice from the registry: checked, stored on flash, applied at once; or refused, and said. */
  private takeNotice(v: unknown, from: string): void {
    const s = parseSignedNotice(v);
    const version = 'error' in s ? 0 : s.notice.version;
    const why = 'error' in s ? 'malformed' : noticeRefusal(s, this.oKey, this.noticeVersion(), deviceVerify);
    if (why || !this.noticeFlash) {
      this.say(LOG_NOTICE_REFUSED, version, from, why || 'no partition', 'error' in s ? ` (${s.error})` : '');
      if (version > this.noticeRefused) {
        this.noticeRefused = version;
        if (this.state.kind === 'ready') this.shown(noticeScreen(this.lang, version, true), 'refused');
      }
      return;
    }
    this.notice = storeNotice(this.noticeFlash, s as never, this.notice);
    this.applyNotice();
    this.say(LOG_NOTICE_APPLIED, version, from, this.config.emissions.length);
    if (this.state.kind === 'ready') this.shown(noticeScreen(this.lang, version, false), 'key');
  }

  /** The registry link, when configured and the device has a network and a key. */
  protected openRegistry(): void {
    const d = this.dev;
    if (!this.config.registryUrl) return;
    const rk = d.identity.registryKey;
    if (!d.Network || !d.DeviceKey || !rk) {
      this.say(LOG_REGISTRY_NONE);
      return;
    }
    this.rKey = fromHex(rk);
    try {
      this.outbox = Outbox.open(new d.Flash({ partition: 'outbox' }));
    } catch (e) {
      this.say(LOG_REGISTRY_NO_OUTBOX, messageOf(e));
      return;
    }
    this.deviceKey = new d.DeviceKey({});
    // Its first 16 hex digits (the host, `saphir sim`, says when it is the published development key).
    this.say(LOG_REGISTRY_KEY, toHex(this.deviceKey.publicKey).slice(0, 16));
    const net: Network = new d.Network({
      url: this.config.registryUrl,
      onReadable: () =>
        this.guard(() => {
          for (let r = net.read(); r; r = net.read())
            if (this.upd && r.id === this.upd.id) this.onChunk(r);
            else this.onAnswer(r);
        }),
    });
    this.net = net;
    if (d.Updater) this.updater = new d.Updater({});
    this.bootAt = this.mono.now();
    this.beatAt = this.bootAt + 10 * this.config.syncIntervalMs;
    this.say(LOG_REGISTRY_URL, this.config.registryUrl, this.outbox.pending.length);
  }

  private request(kind: RequestKind, payments: { code: string; paid_at: number }[]): { id: number; nonce: string } {
    // Trusted time, not the RTC (a clock set back must not make every request stale).
    const now = Math.floor(this.trustedNow());
    if (!this.nonceBase) {
      // Above every nonce of an earlier boot, and on flash before it is used: a power cut replays none.
      this.nonceBase = Math.max(now, this.markStored + 1);
      this.storeMark(this.nonceBase);
    }
    const nonce = `${this.nonceBase}-${++this.nonceCount}`;
    this.lastNonce = nonce;
    const req: RegistryRequest = { kind, device_id: this.deviceId, nonce, sent_at: now, payments };
    if (kind === 'sync') {
      const id = this.dev.identity;
      req.health = {
        fw: id.version || VERSION,
        slot: id.slot || '-',
        image: id.imageHash,
        notice: this.noticeVersion(),
        ledger: this.ledger.count,
        outbox: this.outbox!.pending.length,
        boot: id.bootReason || 'power-on',
        up: Math.floor((this.mono.now() - this.bootAt) / 1000),
        errors: this.stats.errors,
        update: this.updOut,
      };
    }
    const body = JSON.stringify({
      ...signRequestWith(req, (m) => this.deviceKey!.sign(m), sha512),
      // Not signed: it only spares the registry sending a notice this device holds or refused.
      notice_version: Math.max(this.noticeVersion(), this.noticeRefused),
    });
    return { id: this.net!.request(`/v1/${kind}`, body, this.config.registryTimeoutMs), nonce };
  }

  /** OK on a payable win with a registry: ask it first; its answer (or its silence) decides. */
  protected claim(v: Extract<Verdict, { kind: 'win' }>, code: string): void {
    const r = this.request('claim', [{ code, paid_at: Math.floor(this.trustedNow()) }]);
    this.inflight = { ...r, kind: 'claim', entries: [v.ticket] };
    this.display.show(checkingScreen(v.prizeEur, this.lang));
    this.state = { kind: 'claiming', verdict: v, code, until: this.mono.now() + this.config.registryTimeoutMs + 1000 };
  }

  /** Whether `j` is the registry's signed answer to request `f`, a result a ticket in `f`'s order. */
  private authentic(
    j: { results: PaymentResult[]; update?: UpdateOffer; signature?: unknown },
    f: { nonce: string; entries: TicketRef[] },
  ) {
    try {
      const rs = j.results;
      if (rs.some((x, i) => x.result !== 'invalid' && ticketLine(x.ticket) !== ticketLine(f.entries[i]))) return false;
      const text = utf8Encode(answerText({ device_id: this.deviceId, nonce: f.nonce }, rs, j.update));
      return deviceVerify(fromHex(j.signature as string), text, this.rKey);
    } catch {
      return false;
    }
  }

  private onAnswer(r: NetworkResponse): void {
    const f = this.inflight;
    if (!f || r.id !== f.id) return; // an answer to a request given up on
    this.inflight = null;
    const s = this.state;
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
      if (j && j.notice !== undefined) this.takeNotice(j.notice, 'registry');
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
      return this.pay(s.verdict, false, this.lastNonce);
    }
    if (got && got.result === 'already_paid') {
      this.say(LOG_REGISTRY_PAID_BY, ticketLine(s.verdict.ticket), got.by.device_id);
      return this.showVerdict({
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
      this.say(LOG_REGISTRY_REFUSED, why);
      return this.shown(errorScreen(this.lang, TEXT[this.lang][error === 'forged' ? error : 'refused']), 'refused');
    }
    this.offline(s.verdict, s.code, `status ${r.status}`);
  }

  /** Onto the outbox, before the ledger: a cut between the two leaves an entry the sync drops. */
  private queue(v: Extract<Verdict, { kind: 'win' }>, code: string): void {
    const t = v.ticket;
    this.outbox!.add({
      emission: t.emission,
      block: t.block,
      number: t.number,
      paidAtMs: Math.floor(this.trustedNow()),
      code,
    });
  }

  /** No answer from the registry: pay offline up to the offline limit, else not now. */
  protected offline(v: Extract<Verdict, { kind: 'win' }>, code: string, why: string): void {
    this.say(LOG_REGISTRY_NO_ANSWER, why);
    if (v.prizeEur <= this.config.offlineLimitEur) {
      try {
        this.queue(v, code);
        return this.pay(v, true);
      } catch (e) {
        this.say(LOG_OUTBOX, messageOf(e));
      }
    }
    this.shown(payLaterScreen(v.prizeEur, this.lang), 'refused');
    this.note('not-payable', v, this.trustedNow());
  }

  /** Pushes offline payments while some wait, the device is idle and nothing else is asked. */
  protected sync(now: number): void {
    const box = this.outbox;
    const k = this.state.kind;
    if (!box || !this.net || this.inflight || (k !== 'ready' && k !== 'shown') || now < this.nextSyncAt) return;
    this.nextSyncAt = now + this.config.syncIntervalMs;
    const batch: OutboxEntry[] = [];
    const unpaid: OutboxEntry[] = [];
    // Confirmations of claims granted this boot go on their own (`confirm`), the rest as a `sync` (which
    // confirms too: after a reboot every entry goes that way); one kind a batch, in outbox order.
    let confirm: boolean | null = null;
    for (const e of box.pending) {
      if (batch.length >= SYNC_BATCH) break;
      if (!this.ledger.find(e)) {
        unpaid.push(e);
        continue;
      }
      const c = this.toConfirm.has(ticketLine(e));
      if (confirm === null) confirm = c;
      else if (c !== confirm) break;
      batch.push(e);
    }
    if (unpaid.length) {
      this.say(LOG_OUTBOX_DROPPED, unpaid.length);
      box.markSynced(unpaid);
      this.ready(); // the count on the screen
    }
    // Nothing to send: a heartbeat with the health, every 10 sync intervals.
    if (!batch.length && now < this.beatAt) return;
    this.beatAt = now + 10 * this.config.syncIntervalMs;
    this.nextSyncAt = now + this.config.syncIntervalMs;
    const kind = confirm ? 'confirm' : 'sync';
    const r = this.request(
      kind,
      batch.map((e) => ({ code: e.code, paid_at: e.paidAtMs })),
    );
    this.inflight = { ...r, kind, entries: batch };
  }

  private onSynced(entries: OutboxEntry[], results: PaymentResult[] | null, error: string): void {
    if (!results || results.length !== entries.length) {
      this.say(LOG_SYNC_NOT_SENT, this.outbox!.pending.length, error);
      return;
    }
    results.forEach((r, i) => {
      const t = entries[i];
      if (r.result === 'conflict') this.say(LOG_SYNC_CONFLICT, ticketLine(t), r.by.device_id);
      else if (r.result === 'invalid') this.say(LOG_SYNC_REFUSED, ticketLine(t), r.reason);
    });
    if (!entries.length) return;
    this.outbox!.markSynced(entries);
    for (const e of entries) this.toConfirm.delete(ticketLine(e));
    const left = this.outbox!.pending.length;
    this.say(LOG_SYNC_SENT, entries.length, left);
    if (left > 0) this.nextSyncAt = 0; // go on at the next tick
    if (this.state.kind === 'ready') this.ready();
  }

  // --- update campaigns: the firmware downloads, the ROM writes (rom/update.ts) ----------------------

  /** A sync's answer was heard: the outcome it carried is known; an order starts (or resumes) a download. */
  private onUpdateAnswer(o: UpdateOffer | undefined): void {
    if (this.updOut.slice(-10) === ':installed') this.restartWanted = true;
    this.updOut = '-';
    if (!o || this.upd || !this.updater || this.restartWanted) return;
    const r = this.updater.begin(fromHex(o.manifest), o.size);
    if (r.ok) this.say(LOG_UPDATE_FROM, o.campaign, r.next);
    else this.say(LOG_UPDATE_REFUSED, o.campaign, r.detail);
    if (r.ok) this.upd = { hash: o.hash, at: r.next!, id: 0, wait: 0 };
    else this.updateDone(o.hash, 'failed:' + r.reason);
  }

  private updateDone(hash: string, out: string): void {
    this.upd = null;
    this.updOut = `${hash}:${out}`;
    this.beatAt = this.nextSyncAt = 0; // said at once
  }

  /** At each tick while idle (PRÊT): the next chunk asked, the slot finished, or the restart into it. */
  protected download(now: number): void {
    const u = this.upd;
    if (this.state.kind !== 'ready') return;
    if (this.restartWanted) {
      this.say(LOG_UPDATE_RESTART);
      this.restartWanted = false;
      return this.updater!.restart();
    }
    if (!u || u.id || now < u.wait) return;
    if (u.at < 0) {
      const f = this.updater!.finish();
      if (f.ok) this.say(LOG_UPDATE_INSTALLED, f.version);
      else this.say(LOG_UPDATE_FAILED, f.detail);
      return this.updateDone(u.hash, f.ok ? 'installed' : 'failed:' + f.reason);
    }
    u.id = this.net!.request('/v1/chunk', `{"hash":"${u.hash}","offset":${u.at}}`, this.config.registryTimeoutMs);
  }

  /** A chunk came (the ROM programs it), or not: asked again later; 410/404: the campaign is over. */
  private onChunk(r: NetworkResponse): void {
    const u = this.upd!;
    u.id = 0;
    if (r.status === 410 || r.status === 404) {
      this.say(LOG_UPDATE_OVER);
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
    else u.wait = this.mono.now() + this.config.syncIntervalMs;
  }
}
