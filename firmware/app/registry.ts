// The operator's notice (docs/operations.md), and the fleet registry link's seam (docs/registry.md): the
// link itself (firmware/registry/link.ts) is compiled apart, at boot, only on a device configured with
// a registry; it reaches the application through `LinkHost`.
import type { Device, Flash, MonotonicClock, TextDisplay } from '../../src/hal.ts';
import type { MirroredLedger } from '../../src/ledger/index.ts';
import type { Lang } from '../../src/i18n.ts';
import type { Signal } from '../../src/signals.ts';
import type { Config } from '../../src/config.ts';
import { deadlines } from '../deadline.ts';
import { parisMidnightUtc } from '../../src/claim.ts';
import type { StoredNotice } from '../../src/notice.ts';
import { noticeStored } from '../../src/notice-head.ts';
import {
  applyNotice,
  dropNotice,
  loadNotice,
  noticeRefusal,
  noticeHolidays,
  parseSignedNotice,
  storeNotice,
} from '../notices.ts';
import { deviceVerify } from '../verify.ts';
import { fromHex } from '../../src/hex.ts';
import type { Verdict } from '../decide.ts';
import { noticeScreen } from '../screens.ts';
import { dropLink, openLink } from '../registry.ts';
import type { Link } from '../registry/link.ts';
import { Screens } from './screens.ts';
import { messageOf, type State } from './base.ts';
import { LOG_NOTICE, LOG_NOTICE_APPLIED, LOG_NOTICE_REFUSED } from '../../src/messages/log-codes.ts';

/**
 * What the registry link (firmware/registry/link.ts, compiled apart) uses of the application: an
 * interface, not a `Pick` of names as strings (a name written as a string is kept long, tools/mangle.ts).
 */
export interface LinkHost {
  readonly dev: Device;
  readonly config: Config;
  state: State;
  readonly display: TextDisplay;
  readonly mono: MonotonicClock;
  readonly ledger: MirroredLedger;
  readonly deviceId: string;
  readonly stats: { errors: number };
  readonly lang: Lang;
  readonly markStored: number;
  /** The highest notice version refused since boot. */
  readonly noticeRefused: number;
  say(code: number, ...args: unknown[]): void;
  guard(f: () => void): void;
  trustedNow(): number;
  storeMark(ms: number): void;
  shown(screen: string[], s: Signal, ms?: number): void;
  showVerdict(v: Verdict): void;
  note(kind: 'not-payable', v: Verdict, atMs: number): void;
  ready(): void;
  pay(v: Win, offline?: boolean, registryRef?: string): void;
  noticeVersion(): number;
  takeNotice(v: unknown, from: string): void;
}

type Win = Extract<Verdict, { kind: 'win' }>;

export abstract class RegistryLink extends Screens {
  /** The fleet registry link: null when none is configured or the device cannot have one. */
  link: Link | null = null;
  /** The operator's notice in force (docs/operations.md), its partition, the key it must verify with. */
  private notice: StoredNotice | null = null;
  private noticeFlash: Flash | null = null;
  private oKey: Uint8Array | null = null;
  /** The highest notice version refused since boot: the registry is not asked for it again. */
  noticeRefused = 0;
  /** The configuration as stored, before a notice replaces its emissions and limits. */
  private stored!: Config;

  /** Records the payment (firmware/app.ts). */
  abstract pay(v: Extract<Verdict, { kind: 'win' }>, offline?: boolean, registryRef?: string): void;

  /** At boot: the newest notice on flash that verifies, applied over the configuration. */
  protected openNotice(): void {
    const d = this.dev;
    this.stored = this.config;
    const ok = d.identity.operatorKey;
    this.oKey = ok ? fromHex(ok) : null;
    try {
      this.noticeFlash = new d.Flash({ partition: 'notice' });
      // The notice code is compiled only for a notice (firmware/notices.ts).
      if (noticeStored(this.noticeFlash)) this.notice = loadNotice(this.noticeFlash, this.oKey, deviceVerify);
    } catch (e) {
      this.say(LOG_NOTICE, messageOf(e)); // a device without the partition takes none
    }
    // None now, and no registry to bring one: never needed.
    if (!this.notice && !this.config.registryUrl) dropNotice();
    this.applyNotice();
  }

  noticeVersion(): number {
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
  takeNotice(v: unknown, from: string): void {
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

  /** The registry link, when configured; without one, its packed text is dropped. */
  protected openRegistry(): void {
    if (this.config.registryUrl) this.link = openLink(this);
    else dropLink();
  }
}
