// saphir sim --web: the simulator in a browser page (hw-sim/web/server.ts).
import type { Lang } from '../../../src/i18n.ts';
import { messages } from '../../../src/messages/index.ts';
import { untilStopped } from '../../stop.ts';
import { openRegistry } from './common.ts';

export async function web(o: {
  lang: Lang;
  port: number;
  host?: string;
  open: boolean;
  registry?: string;
  deviceId?: string;
  department?: string;
}): Promise<number> {
  const { startWebServer } = await import('../../../hw-sim/web/server.ts');
  const registry = o.registry ? await openRegistry(o.registry, o.lang) : undefined;
  const w = await startWebServer({
    port: o.port,
    host: o.host,
    registry: registry?.reg.url,
    deviceId: o.deviceId,
    department: o.department,
  });
  const m = messages(o.lang).sim;
  const { stopped } = untilStopped(); // (before the line that gives the address)
  process.stdout.write(m.web(w.url) + '\n');
  if (o.open) {
    const { spawn } = await import('node:child_process');
    const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(cmd, [w.url], { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(m.noBrowser(cmd, w.url) + '\n'));
    child.unref();
  }
  await stopped;
  await w.close();
  await registry?.close();
  return 0;
}
