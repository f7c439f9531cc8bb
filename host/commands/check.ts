// saphir check [--json] [--key HEX|FILE] [--lang fr|en] [CODE… | -]
import { checkCode, type CheckResult } from '../../src/sph1/check.ts';
import { testKeyRing } from '../../src/sph1/keys.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';
import { hostVerify } from '../../tools/node-crypto.ts';
import { UsageError, parseCommand } from '../args.ts';
import { readTrustedKeys, signedWithTestKey } from '../keys.ts';
import { lines } from '../lines.ts';
import { verdictJson, verdictLine } from '../verdict.ts';
import { stdoutGone, writeOut } from '../stdout.ts';

const HELP = (lang: Lang) => messages(lang).help.check;

/** Length of an SPH1 code: `SPH1:` and the Base45 of 106 bytes. */
const CODE_LENGTH = 5 + 159;

/** Spaces and tabs around a code are the transport's, as in audit. */
function trimCode(s: string): string {
  return s.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * Arguments as codes. The shell splits an unquoted code at its spaces (Base45 has them): the pieces
 * after an `SPH1:` argument that is still shorter than a code are glued back, and reported.
 */
export function codesOfArgs(args: string[]): { codes: string[]; glued: number } {
  const codes: string[] = [];
  let glued = 0;
  let pieces = 0;
  for (const a of args) {
    const last = codes.length - 1;
    if (last >= 0 && codes[last].startsWith('SPH1:') && codes[last].length < CODE_LENGTH && !a.startsWith('SPH1:')) {
      codes[last] += ' ' + a;
      pieces++;
      continue;
    }
    if (pieces > 0) glued = Math.max(glued, pieces + 1);
    pieces = 0;
    codes.push(a);
  }
  if (pieces > 0) glued = Math.max(glued, pieces + 1);
  return { codes, glued };
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, { json: { type: 'boolean' }, key: { type: 'string' } });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const m = messages(lang);
  const keys = values.key !== undefined ? readTrustedKeys(values.key) : testKeyRing();
  const opts = { keys, verify: hostVerify };
  let allGenuine = true;
  let testKeyWarned = false;
  let count = 0;
  let out = '';
  const flush = async (force: boolean) => {
    if (out.length > (force ? 0 : 1 << 16)) {
      const chunk = out;
      out = '';
      await writeOut(chunk);
    }
  };
  const one = async (input: string) => {
    const code = trimCode(input);
    const r: CheckResult = checkCode(code, opts);
    count++;
    if (r.status === 'invalid') allGenuine = false;
    else if (!testKeyWarned && r.ticket && signedWithTestKey(keys, r.ticket.keyId)) {
      testKeyWarned = true;
      process.stderr.write(`saphir check: ${m.keys.testKey}\n`);
    }
    out += (values.json ? JSON.stringify(verdictJson(code, r)) : verdictLine(r, lang)) + '\n';
    await flush(false);
  };
  const fromStdin = positionals.length === 0 || (positionals.length === 1 && positionals[0] === '-');
  if (fromStdin) {
    for await (const line of lines(process.stdin)) {
      // A reader that went away (`check - | head`) ends the run: nobody reads the rest.
      if (stdoutGone()) break;
      await one(line);
    }
    if (count === 0 && !stdoutGone()) throw new UsageError((mm) => mm.check.empty);
  } else {
    if (positionals.some((a) => trimCode(a) === '')) throw new UsageError((mm) => mm.check.emptyArg);
    const { codes, glued } = codesOfArgs(positionals);
    if (glued > 0) process.stderr.write(`saphir check: ${m.check.quote(glued)}\n`);
    for (const code of codes) await one(code);
  }
  await flush(true);
  return allGenuine ? 0 : 1;
}
