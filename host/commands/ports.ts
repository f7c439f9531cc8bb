// saphir ports [--json] [--port PATH…] [--baud N] [--timeout MS] [--lang fr|en]
// Serial ports from /sys/class/tty and /dev/serial/by-id (no udevadm), each asked IDENTIFY briefly.
import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ServiceClient } from '../flash-client.ts';
import { intOf, parseCommand } from '../args.ts';
import { textTable } from '../table.ts';
import type { Lang } from '../../src/i18n.ts';
import { messages } from '../../src/messages/index.ts';

const HELP = (lang: Lang) => messages(lang).help.ports;

export interface PortInfo {
  path: string;
  byId: string | null;
  /** "1a86:7523" */
  usb: string | null;
  serialNumber: string | null;
  product: string | null;
  deviceId: string | null;
  version: string | null;
}

const readText = (p: string): string | null => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return null;
  }
};

/**
 * Ports backed by a device (virtual consoles and ptys have no `device` link in sysfs). `sys` and `dev`
 * are the roots of /sys and /dev (tests give a fake tree).
 */
export function listPorts(sys = '/sys', dev = '/dev'): PortInfo[] {
  const classDir = join(sys, 'class', 'tty');
  let names: string[];
  try {
    names = readdirSync(classDir);
  } catch {
    names = [];
  }
  // by-id links: name → /dev/ttyUSB0
  const byId = new Map<string, string>();
  const idDir = join(dev, 'serial', 'by-id');
  try {
    for (const l of readdirSync(idDir)) {
      try {
        const target = resolve(idDir, readlinkSync(join(idDir, l)));
        byId.set(target.slice(target.lastIndexOf('/') + 1), join(idDir, l));
      } catch {
        /* not a link */
      }
    }
  } catch {
    /* no /dev/serial: no USB serial adapters, or no udev */
  }
  const out: PortInfo[] = [];
  for (const name of names.sort()) {
    const devLink = join(classDir, name, 'device');
    if (!existsSync(devLink)) continue;
    let real: string;
    try {
      real = realpathSync(devLink);
    } catch {
      continue;
    }
    let usbDir: string | null = null;
    for (let d = real; d.length > sys.length && d !== '/'; d = dirname(d)) {
      if (existsSync(join(d, 'idVendor'))) {
        usbDir = d;
        break;
      }
    }
    // The kernel lists every 8250 UART slot it reserved; `type` 0 means no UART answered there.
    if (!usbDir && !byId.has(name) && readText(join(classDir, name, 'type')) === '0') continue;
    out.push({
      path: join(dev, name),
      byId: byId.get(name) ?? null,
      usb: usbDir ? `${readText(join(usbDir, 'idVendor'))}:${readText(join(usbDir, 'idProduct'))}` : null,
      serialNumber: usbDir ? readText(join(usbDir, 'serial')) : null,
      product: usbDir ? readText(join(usbDir, 'product')) : null,
      deviceId: null,
      version: null,
    });
  }
  return out;
}

/** Fills deviceId and version of the ports whose device answers IDENTIFY in time. */
export async function probe(ports: PortInfo[], baud: number, timeoutMs: number): Promise<void> {
  await Promise.all(
    ports.map(async (p) => {
      let c: ServiceClient | null = null;
      try {
        c = await ServiceClient.open(p.path, { baud });
        const id = await c.identify({ tries: 1, timeoutMs });
        p.deviceId = id.deviceId;
        p.version = id.running?.version ?? null;
      } catch {
        /* busy, not a SAPHIR device, or silent: listed without */
      } finally {
        await c?.close().catch(() => {});
      }
    }),
  );
}

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand(args, HELP, {
    json: { type: 'boolean' },
    port: { type: 'string', short: 'p', multiple: true },
    baud: { type: 'string', short: 'b' },
    timeout: { type: 'string' },
  });
  if (!parsed) return 0;
  const { values, lang } = parsed;
  const baud = values.baud === undefined ? 115200 : intOf(values.baud, '--baud', 300, 4000000);
  const timeoutMs = values.timeout === undefined ? 300 : intOf(values.timeout, '--timeout', 10, 60000);
  const ports = listPorts();
  for (const extra of values.port ?? []) {
    if (!ports.some((p) => p.path === extra))
      ports.push({
        path: extra,
        byId: null,
        usb: null,
        serialNumber: null,
        product: null,
        deviceId: null,
        version: null,
      });
  }
  await probe(ports, baud, timeoutMs);
  if (values.json) {
    process.stdout.write(JSON.stringify(ports, null, 2) + '\n');
    return 0;
  }
  const t = messages(lang).ports;
  if (ports.length === 0) {
    process.stdout.write(t.none + '\n');
    return 0;
  }
  const rows = [
    t.cols,
    ...ports.map((p) => [
      p.path,
      p.byId ?? '—',
      p.usb ?? '—',
      p.serialNumber ?? '—',
      p.deviceId ?? t.noAnswer,
      p.version ?? '—',
    ]),
  ];
  process.stdout.write(textTable(rows) + '\n');
  return 0;
}
