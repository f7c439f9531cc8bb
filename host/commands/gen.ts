// saphir gen --emission E --block B (--full | --from N --count K) [--seed S] [--key FILE] [--jobs J]
import { BLOCK_SIZE } from '../../src/game/rules.ts';
import { blockGenerator, DEFAULT_SEED } from '../../src/gen/index.ts';
import { fromHex } from '../../src/hex.ts';
import { TEST_KEY_ID, TEST_KEY_SEED_HEX } from '../../src/sph1/keys.ts';
import type { Lang } from '../../src/i18n.ts';
import { UsageError, intOf, parseCommand } from '../args.ts';
import { readSigningKey } from '../keys.ts';
import { messages } from '../../src/messages/index.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { RangeEncoder, type SigningKey } from '../workers/gen-core.ts';
import { runOrdered, workerCount } from '../../tools/worker-pool.ts';
import { startBundledWorkers } from '../workers/bundle.ts';
import { progressOffTty } from '../progress.ts';
import { stdoutGone, writeOut } from '../stdout.ts';

const HELP = (lang: Lang) => messages(lang).help.gen(DEFAULT_SEED);

/** Tickets a worker job covers (≈ 1.3 MB of output). */
const CHUNK = 8192;

/** Reads a --key file: JSON {"key_id": 0…255, "seed_hex": 64 hex digits}. */
export const readKeyFile: (path: string) => SigningKey = readSigningKey;

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
  if (values.emission === undefined || values.block === undefined) throw new UsageError((m) => m.gen.needBlock);
  const emission = intOf(values.emission, '--emission', 0, 0xffff);
  const block = intOf(values.block, '--block', 0, 0xffff);
  let from: number;
  let count: number;
  if (values.full) {
    if (values.from !== undefined || values.count !== undefined) throw new UsageError((m) => m.gen.fullExcludes);
    from = 0;
    count = BLOCK_SIZE;
  } else {
    if (values.from === undefined || values.count === undefined) throw new UsageError((m) => m.gen.fullOrRange);
    from = intOf(values.from, '--from', 0, BLOCK_SIZE - 1);
    count = intOf(values.count, '--count', 0, BLOCK_SIZE - from);
  }
  const seed = values.seed ?? DEFAULT_SEED;
  const jobs = values.jobs === undefined ? workerCount() : intOf(values.jobs, '--jobs', 1, 64);
  let key: SigningKey;
  if (values.key !== undefined) key = readKeyFile(values.key);
  else {
    key = { keyId: TEST_KEY_ID, seed: fromHex(TEST_KEY_SEED_HEX) };
    process.stderr.write(`saphir gen: ${messages(lang).keys.testKey}\n`);
  }

  const chunks = Math.ceil(count / CHUNK);
  const range = (i: number) => ({ from: from + i * CHUNK, count: Math.min(CHUNK, count - i * CHUNK) });
  // Output that is one job is done at once: no progress for it.
  const progress = progressOffTty('', !!values.quiet || chunks <= 1);
  let written = 0;
  const wrote = (n: number) => progress({ done: (written += n), total: count });

  if (jobs === 1 || chunks <= 1) {
    const enc = new RangeEncoder(blockGenerator(seed, emission, block), key, nodeSign);
    for (let i = 0; i < chunks && !stdoutGone(); i++) {
      const r = range(i);
      await writeOut(enc.encode(r.from, r.count));
      wrote(r.count);
    }
    return 0;
  }
  const workers = await startBundledWorkers(
    new URL('../workers/gen-worker.ts', import.meta.url),
    Math.min(jobs, chunks),
    {
      seed,
      emission,
      block,
      keyId: key.keyId,
      seedHex: Buffer.from(key.seed).toString('hex'),
    },
  );
  try {
    await runOrdered<{ bytes: Uint8Array }>(
      workers,
      chunks,
      (id) => ({ id, ...range(id) }),
      async (r) => {
        // A reader that goes away (`gen … | head`) ends the output quietly.
        if (stdoutGone()) throw new Stop();
        await writeOut(r.bytes);
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
