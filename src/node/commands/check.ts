// saphir check [--json] [--lang fr|en] [CODE… | -]
import { checkCode } from '../../sph1/check.ts';
import { testKeyRing } from '../../sph1/keys.ts';
import { hostVerify } from '../node-crypto.ts';
import { parseCommand } from '../args.ts';
import { lines } from '../lines.ts';
import { verdictJson, verdictLine } from '../verdict.ts';

const HELP = `usage: saphir check [--json] [--lang fr|en] [CODE… | -]
Checks SAPHIR ticket codes given as arguments, or one per line on standard input ('-' or none).
Exit 0 when every code is genuine, 1 when any is not, 2 on a usage error.`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, { json: { type: 'boolean' } });
  if (!parsed) return 0;
  const { values, positionals, lang } = parsed;
  const opts = { keys: testKeyRing(), verify: hostVerify };
  let allGenuine = true;
  let out = '';
  const flush = async (force: boolean) => {
    if (out.length > (force ? 0 : 1 << 16)) {
      const chunk = out;
      out = '';
      if (!process.stdout.write(chunk)) await new Promise((r) => process.stdout.once('drain', r));
    }
  };
  const one = async (code: string) => {
    const r = checkCode(code, opts);
    if (r.status === 'invalid') allGenuine = false;
    out += (values.json ? JSON.stringify(verdictJson(code, r)) : verdictLine(r, lang)) + '\n';
    await flush(false);
  };
  const fromStdin = positionals.length === 0 || (positionals.length === 1 && positionals[0] === '-');
  if (fromStdin) {
    for await (const line of lines(process.stdin)) await one(line);
  } else {
    for (const code of positionals) await one(code);
  }
  await flush(true);
  return allGenuine ? 0 : 1;
}
