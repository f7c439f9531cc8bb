// saphir gen --emission E --block B (--full | --from N --count K) [--seed S] [--key FILE] [--jobs J]
import { readFileSync } from 'node:fs';
import { BLOCK_SIZE } from '../../game/rules.ts';
import { blockGenerator, DEFAULT_SEED } from '../../gen/index.ts';
import { fromHex } from '../../hex.ts';
import { TEST_KEY_ID, TEST_KEY_SEED_HEX } from '../../sph1/keys.ts';
import type { Lang } from '../../i18n.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { nodeSign } from '../node-crypto.ts';
import { RangeEncoder, type SigningKey } from '../workers/gen-core.ts';
import { runOrdered, startWorkers, workerCount } from '../workers/pool.ts';
import { progressOffTty } from '../progress.ts';

const HELP = `usage: saphir gen --emission E --block B (--full | --from N --count K) [--seed S] [--key FILE]
                  [--jobs J] [--lang fr|en]
Prints signed SPH1 ticket codes of one block, one per line, in ticket-number order.
  --full          the whole block: 3 000 000 tickets whose prizes are exactly those of Article 3
  --from/--count  tickets N … N+K-1 only (the same lines as in the full block)
  --seed S        the secret the prizes and zones derive from (default '${DEFAULT_SEED}'); same seed, same output
  --key FILE      signing key, JSON {"key_id": 1, "seed_hex": "<32-byte Ed25519 private seed, hex>"};
                  without it the published test key (key id 0) signs, with a warning
  --jobs J        worker threads (default: one per core)
  --quiet         no progress (otherwise a line every 10 % on stderr when it is not a terminal)`;

const TEXT: Record<Lang, { testKey: string }> = {
  fr: { testKey: 'attention : tickets signés avec la clé de TEST (id 0), refusés par un validateur de production' },
  en: { testKey: 'warning: tickets signed with the TEST key (id 0), refused by a production validator' },
};

/** Tickets a worker job covers (≈ 1.3 MB of output). */
const CHUNK = 8192;

/** Reads a --key file: JSON {"key_id": 0…255, "seed_hex": 64 hex digits}. */
export function readKeyFile(path: string): SigningKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`--key: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new UsageError(`--key: ${path} is not JSON ({"key_id": 1, "seed_hex": "…"})`);
  }
  const k = o as { key_id?: unknown; seed_hex?: unknown };
  if (typeof k !== 'object' || k === null || !Number.isInteger(k.key_id) || (k.key_id as number) < 0 || (k.key_id as number) > 255) {
    throw new UsageError(`--key: ${path}: key_id must be an integer from 0 to 255`);
  }
  if (typeof k.seed_hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(k.seed_hex)) {
    throw new UsageError(`--key: ${path}: seed_hex must be 64 hex digits (a 32-byte Ed25519 private seed)`);
  }
  return { keyId: k.key_id as number, seed: fromHex(k.seed_hex) };
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    emission: { type: 'string' },
    block: { type: 'string' },
    full: { type: 'boolean' },
    from: { type: 'string' },
    count: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    seed: { type: 'string' },
    key: { type: 'string' },
    jobs: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, lang } = parsed;
  if (values.emission === undefined || values.block === undefined) throw new UsageError('--emission and --block are required');
  const emission = intOf(values.emission, '--emission', 0, 0xffff);
  const block = intOf(values.block, '--block', 0, 0xffff);
  let from: number;
  let count: number;
  if (values.full) {
    if (values.from !== undefined || values.count !== undefined) throw new UsageError('--full excludes --from/--count');
    from = 0;
    count = BLOCK_SIZE;
  } else {
    if (values.from === undefined || values.count === undefined) throw new UsageError('give --full, or --from N and --count K');
    from = intOf(values.from, '--from', 0, BLOCK_SIZE - 1);
    count = intOf(values.count, '--count', 0, BLOCK_SIZE - from);
  }
  const seed = values.seed ?? DEFAULT_SEED;
  const jobs = values.jobs === undefined ? workerCount() : intOf(values.jobs, '--jobs', 1, 64);
  let key: SigningKey;
  if (values.key !== undefined) key = readKeyFile(values.key);
  else {
    key = { keyId: TEST_KEY_ID, seed: fromHex(TEST_KEY_SEED_HEX) };
    process.stderr.write(`saphir gen: ${TEXT[lang].testKey}\n`);
  }

  // A reader that goes away (`gen … | head`) ends the output quietly.
  let closed = false;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else throw e;
  });
  const write = (bytes: Uint8Array) =>
    new Promise<void>((resolve) => {
      if (closed || process.stdout.write(bytes)) return resolve();
      const done = () => {
        process.stdout.off('drain', done);
        process.stdout.off('error', done);
        process.stdout.off('close', done);
        resolve();
      };
      process.stdout.on('drain', done);
      process.stdout.on('error', done);
      process.stdout.on('close', done);
    });
  const chunks = Math.ceil(count / CHUNK);
  const range = (i: number) => ({ from: from + i * CHUNK, count: Math.min(CHUNK, count - i * CHUNK) });
  // Output that is one job is done at once: no progress for it.
  const progress = progressOffTty('', !!values.quiet || chunks <= 1);
  let written = 0;
  const wrote = (n: number) => progress({ done: (written += n), total: count });

  if (jobs === 1 || chunks <= 1) {
    const enc = new RangeEncoder(blockGenerator(seed, emission, block), key, nodeSign);
    for (let i = 0; i < chunks && !closed; i++) {
      const r = range(i);
      await write(enc.encode(r.from, r.count));
      wrote(r.count);
    }
    return 0;
  }
  const workers = startWorkers(new URL('../workers/gen-worker.ts', import.meta.url), Math.min(jobs, chunks), {
    seed,
    emission,
    block,
    keyId: key.keyId,
    seedHex: Buffer.from(key.seed).toString('hex'),
  });
  try {
    await runOrdered<{ bytes: Uint8Array }>(
      workers,
      chunks,
      (id) => ({ id, ...range(id) }),
      async (r) => {
        if (closed) throw new Stop();
        await write(r.bytes);
        wrote(Math.min(CHUNK, count - written));
      },
    );
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return 0;
}

class Stop extends Error {}
