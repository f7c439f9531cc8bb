// saphir notice create | sign | inspect | push — the operator's signed notices (src/notice.ts,
// docs/operations.md): written, signed with the operator key, read back, carried to a device.
import { readFileSync, writeFileSync } from 'node:fs';
import { Failure, UsageError, intOf, parseCommand } from '../args.ts';
import {
  DEV_OPERATOR_PUBLIC_KEY_HEX,
  DEV_OPERATOR_SEED_HEX,
  NOTICE_TEXT_MAX,
  noticeMessage,
  noticeProblem,
  noticeHolidays,
  parseNoticeText,
  signNotice,
  signedNoticeText,
  noticeBytes,
  type Notice,
  type NoticeEmission,
  type SignedNotice,
} from '../../src/notice.ts';
import { claimDeadline, isDate } from '../../src/claim.ts';
import { isDepartment } from '../../src/config-schema.ts';
import { fromHex, toHex } from '../../src/hex.ts';
import { nodePublicKeyOf as publicKeyOf, nodeSign, nodeVerify } from '../../tools/node-crypto.ts';
import { textTable } from '../table.ts';
import { errnoOf } from '../../src/system-error.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { withServiceClient } from './service-text.ts';
import { devTechKeyWarning, publicKeyArg, seedArg, techSeedOf } from '../key-args.ts';

const HELP = (lang: Lang) => messages(lang).help.notice;

/** A notice file (signed or not): its text read and parsed, or a Failure saying why in the user's words. */
export function readNotice(path: string): SignedNotice {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const n = errnoOf(e);
    throw new Failure((m) => m.notice.cannotRead(path, n ? m.os.errno(n.code) : String((e as Error).message)));
  }
  if (text.length > NOTICE_TEXT_MAX)
    throw new Failure((m) => m.notice.malformed(path, `over ${NOTICE_TEXT_MAX} characters`));
  const p = parseNoticeText(text);
  if ('error' in p) throw new Failure((m) => m.notice.malformed(path, p.error));
  return p;
}

/** `--operator-key HEX|FILE` of sign: the operator's private seed; the published development one when absent. */
function operatorSeedOf(arg: string | undefined): { seed: Uint8Array; dev: boolean } {
  if (arg === undefined) return { seed: fromHex(DEV_OPERATOR_SEED_HEX), dev: true };
  const seed = seedArg('--operator-key', arg);
  return { seed: fromHex(seed), dev: seed === DEV_OPERATOR_SEED_HEX };
}

/** `--emission NUM:NAME:ON_SALE[:CLOSES]` (the name may hold colons: the dates are the last fields). */
function emissionOf(arg: string): NoticeEmission {
  const parts = arg.split(':');
  let closes: string | undefined;
  if (parts.length >= 4 && isDate(parts[parts.length - 1]) && isDate(parts[parts.length - 2])) closes = parts.pop();
  const onSale = parts.pop();
  const num = parts.shift();
  const name = parts.join(':');
  if (parts.length < 1 || !num || !/^\d{1,5}$/.test(num) || !onSale)
    throw new UsageError((m) => m.notice.emission(arg));
  const e: NoticeEmission = { number: Number(num), name, on_sale: onSale };
  if (closes !== undefined) e.closes = closes;
  return e;
}

function write(text: string, out: string | undefined): void {
  if (out === undefined) process.stdout.write(text + '\n');
  else writeFileSync(out, text + '\n');
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    version: { type: 'string' },
    from: { type: 'string' },
    emission: { type: 'string', multiple: true },
    close: { type: 'string', multiple: true },
    'payout-limit': { type: 'string' },
    'offline-limit': { type: 'string' },
    'id-threshold': { type: 'string' },
    holiday: { type: 'string', multiple: true },
    department: { type: 'string' },
    out: { type: 'string', short: 'o' },
    'operator-key': { type: 'string' },
    json: { type: 'boolean' },
    port: { type: 'string', short: 'p' },
    baud: { type: 'string', short: 'b' },
    'tech-key': { type: 'string' },
    'no-reboot': { type: 'boolean' },
  });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const t = messages(lang).notice;
  const [sub, ...rest] = positionals;

  if (sub === 'create' && rest.length === 0) {
    const base = values.from === undefined ? null : readNotice(values.from).notice;
    const n: Notice = base
      ? {
          ...base,
          emissions: base.emissions.map((e) => ({ ...e })),
          holidays: base.holidays.slice(),
          departments: base.departments?.map((d) => ({ code: d.code, holidays: d.holidays.slice() })),
        }
      : {
          version: 0,
          payout_limit_eur: 300,
          offline_limit_eur: 150,
          id_threshold_eur: 5000,
          emissions: [],
          holidays: [],
        };
    if (values.version !== undefined) n.version = intOf(values.version, '--version', 1, 0x7fffffff);
    else if (base) n.version = base.version + 1;
    else throw new UsageError((m) => m.notice.needVersion);
    if (values['payout-limit'] !== undefined)
      n.payout_limit_eur = intOf(values['payout-limit'], '--payout-limit', 0, 0xffffffff);
    if (values['offline-limit'] !== undefined)
      n.offline_limit_eur = intOf(values['offline-limit'], '--offline-limit', 0, 0xffffffff);
    if (values['id-threshold'] !== undefined)
      n.id_threshold_eur = intOf(values['id-threshold'], '--id-threshold', 1, 0xffffffff);
    for (const a of values.emission ?? []) {
      const e = emissionOf(a);
      const i = n.emissions.findIndex((x) => x.number === e.number);
      if (i >= 0) n.emissions[i] = e;
      else n.emissions.push(e);
    }
    for (const a of values.close ?? []) {
      const r = /^(\d{1,5}):(.+)$/.exec(a);
      const e = r ? n.emissions.find((x) => x.number === Number(r[1])) : undefined;
      if (!r || !e) throw new UsageError((m) => m.notice.close(a));
      e.closes = r[2];
    }
    // --holiday DATE: every device's; --holiday DEPT:DATE: the devices configured with that department.
    const sorted = (a: string[], b: string) => [...new Set([...a, b])].sort();
    for (const h of values.holiday ?? []) {
      const r = /^([^:]+):(.*)$/.exec(h);
      if (!r) {
        n.holidays = sorted(n.holidays, h);
        continue;
      }
      if (!isDepartment(r[1])) throw new UsageError((m) => m.notice.department(h));
      const ds = (n.departments ??= []);
      const d = ds.find((x) => x.code === r[1]) ?? ds[ds.push({ code: r[1], holidays: [] }) - 1];
      d.holidays = sorted(d.holidays, r[2]);
    }
    n.departments?.sort((a, b) => (a.code < b.code ? -1 : 1));
    const problem = noticeProblem(n);
    if (problem) throw new Failure((m) => m.notice.invalid(problem));
    write(signedNoticeText({ notice: n }), values.out);
    if (values.out !== undefined) process.stderr.write(t.created(n.version, values.out) + '\n');
    return 0;
  }

  if (sub === 'sign' && rest.length === 1) {
    const s = readNotice(rest[0]);
    const k = operatorSeedOf(values['operator-key']);
    if (k.dev) process.stderr.write(t.devKey + '\n');
    const signed = signNotice(s.notice, (m) => nodeSign(m, k.seed));
    write(signedNoticeText(signed), values.out);
    if (values.out !== undefined)
      process.stderr.write(t.signed(s.notice.version, values.out, toHex(publicKeyOf(k.seed))) + '\n');
    return 0;
  }

  if (sub === 'inspect' && rest.length === 1) {
    const s = readNotice(rest[0]);
    const pub =
      values['operator-key'] === undefined
        ? fromHex(DEV_OPERATOR_PUBLIC_KEY_HEX)
        : publicKeyArg('--operator-key', values['operator-key']);
    const dev = toHex(pub) === DEV_OPERATOR_PUBLIC_KEY_HEX;
    const verifies = s.signature !== undefined && nodeVerify(fromHex(s.signature), noticeMessage(s.notice), pub);
    const n = s.notice;
    const dep = values.department;
    if (dep !== undefined && !isDepartment(dep)) throw new UsageError((m) => m.notice.department(dep));
    const holidays = noticeHolidays(n, dep ?? '');
    const deadline = (e: NoticeEmission) => (e.closes === undefined ? null : claimDeadline(e.closes, holidays));
    if (values.json) {
      process.stdout.write(
        JSON.stringify({
          ...n,
          emissions: n.emissions.map((e) => ({ ...e, claim_deadline: deadline(e) })),
          department: dep ?? null,
          signed: s.signature !== undefined,
          verifies,
          operator_key: toHex(pub),
        }) + '\n',
      );
    } else {
      const rows = [
        t.cols,
        ...n.emissions.map((e) => [
          String(e.number),
          e.name,
          e.on_sale,
          e.closes ?? t.onSale,
          deadline(e) ?? t.noDeadline,
        ]),
      ];
      const out = [
        `${t.version} ${n.version}`,
        t.limits(n.payout_limit_eur, n.offline_limit_eur, n.id_threshold_eur),
        textTable(rows),
        `${t.holidays} ${n.holidays.length ? n.holidays.join(', ') : '—'}`,
        ...(n.departments ?? []).map((d) => `${t.departmentHolidays(d.code)} ${d.holidays.join(', ') || '—'}`),
        ...(n.departments?.length ? [t.deadlinesFor(dep ?? '')] : []),
        s.signature === undefined ? t.unsigned : verifies ? t.verifies(toHex(pub), dev) : t.noVerify(toHex(pub), dev),
      ];
      process.stdout.write(out.join('\n') + '\n');
    }
    return s.signature !== undefined && verifies ? 0 : 1;
  }

  if (sub === 'push' && rest.length === 1) {
    const s = readNotice(rest[0]);
    if (s.signature === undefined) throw new Failure((m) => m.notice.pushUnsigned(rest[0]));
    if (!values.port) throw new UsageError((m) => m.service.port);
    const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
    const tech = techSeedOf(values['tech-key']);
    if (tech.dev) process.stderr.write(devTechKeyWarning('notice', lang));
    return withServiceClient(
      'notice',
      values.port,
      baud,
      lang,
      async (client) => {
        const r = await client.notice(noticeBytes(s));
        if (!r.ok) {
          process.stderr.write(`saphir notice: ${t.refused(t.reasons[r.reason] ?? r.reason, r.detail)}\n`);
          return 1;
        }
        process.stdout.write(t.pushed(r.version, r.previous) + '\n');
        if (!values['no-reboot']) {
          await client.reboot();
          process.stdout.write(t.rebooted + '\n');
        } else process.stdout.write(t.atNextStart + '\n');
        return 0;
      },
      tech.seed,
    );
  }
  throw new UsageError((m) => m.help.notice);
}
