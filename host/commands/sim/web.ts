// saphir sim --web: the simulator in a browser page (hw-sim/web/server.ts).
import type { Lang } from '../../../src/i18n.ts';
import { messages } from '../../../src/messages/index.ts';
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
  // Heard from before the line that gives the address: a script may stop the server as soon as it reads it.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
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
