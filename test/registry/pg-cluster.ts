// A throwaway PostgreSQL cluster in a temp folder, on 127.0.0.1 and a free port, for the tests and the
// bench: Debian's `postgresql` package (initdb, pg_ctl). As root, the cluster runs as user postgres.
// The first cluster's fresh data folder is kept in node_modules/.cache (saphir-pg-VERSION-FORMAT): the next
// ones start from a copy of it (0.05 s of CPU, not initdb's 0.4 s).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ROOT } from '../../tools/paths.ts';

export const PG_INSTALL_HINT = 'apt-get install postgresql';

/** The folder holding initdb and pg_ctl, or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0], 'bin') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  url: string;
  stop(): void;
}

export async function startPostgres(): Promise<PgCluster> {
  const bin = postgresBin();
  if (!bin) throw new Error(`PostgreSQL is not installed (${PG_INSTALL_HINT})`);
  const dir = mkdtempSync(join(tmpdir(), 'saphir-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  let uid = -1;
  let gid = -1;
  if (asRoot) {
    uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(join(bin, cmd), args, {
      encoding: 'utf8',
      uid: asRoot ? uid : undefined,
      gid: asRoot ? gid : undefined,
      cwd: dir,
    });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout || r.error}`);
  };
  // Bumped when the initdb options change.
  const template = join(ROOT, 'node_modules', '.cache', `saphir-pg-${basename(dirname(bin))}-1`);
  const copy = (from: string, to: string) => spawnSync('cp', ['-a', from, to]).status === 0;
  if (!existsSync(join(template, 'PG_VERSION')) || !copy(template, data)) {
    rmSync(data, { recursive: true, force: true });
    run('initdb', ['-D', data, '-U', 'saphir', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Whole or absent for the others: copied beside, then renamed.
    const tmp = `${template}.${process.pid}.tmp`;
    try {
      if (copy(data, tmp)) renameSync(tmp, template);
    } catch {
      // another cluster kept one meanwhile
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c max_connections=120`;
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // A test that dies half-way still stops its server.
  process.on('exit', stop);
  return { url: `postgres://saphir@127.0.0.1:${port}/postgres`, stop };
}
