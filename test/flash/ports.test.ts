// `saphir ports`: discovery from sysfs and /dev/serial/by-id (a fake tree), IDENTIFY on a real pty.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPorts } from '../../host/commands/ports.ts';
import { flashDevice, devicePty, ptyTest } from './harness.ts';
import { saphirIn } from '../cli/run-cli.ts';

test('listPorts: USB adapters with by-id, VID:PID and serial; consoles and empty 8250 slots left out', async () => {
  const root = mkdtempSync(join(tmpdir(), 'saphir-ports-'));
  try {
    const sys = join(root, 'sys');
    const dev = join(root, 'dev');
    const usb = join(sys, 'devices', 'pci0000:00', 'usb1', '1-2');
    const iface = join(usb, '1-2:1.0', 'ttyUSB0');
    mkdirSync(iface, { recursive: true });
    writeFileSync(join(usb, 'idVendor'), '1a86\n');
    writeFileSync(join(usb, 'idProduct'), '7523\n');
    writeFileSync(join(usb, 'serial'), 'SAPHIR-0042\n');
    writeFileSync(join(usb, 'product'), 'USB Serial\n');
    const uart = join(sys, 'devices', 'platform', 'serial8250', 'tty', 'ttyS0');
    mkdirSync(uart, { recursive: true });
    const cls = join(sys, 'class', 'tty');
    for (const n of ['ttyUSB0', 'ttyS0', 'tty0']) mkdirSync(join(cls, n), { recursive: true });
    symlinkSync(iface, join(cls, 'ttyUSB0', 'device'));
    symlinkSync(uart, join(cls, 'ttyS0', 'device'));
    writeFileSync(join(cls, 'ttyS0', 'type'), '0\n'); // a reserved 8250 slot with no UART
    mkdirSync(join(dev, 'serial', 'by-id'), { recursive: true });
    symlinkSync('../../ttyUSB0', join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial_SAPHIR-0042-if00-port0'));
    const ports = listPorts(sys, dev);
    assert.equal(ports, [
      {
        path: join(dev, 'ttyUSB0'),
        byId: join(dev, 'serial', 'by-id', 'usb-1a86_USB_Serial_SAPHIR-0042-if00-port0'),
        usb: '1a86:7523',
        serialNumber: 'SAPHIR-0042',
        product: 'USB Serial',
        deviceId: null,
        version: null,
      },
    ]);
    assert.equal(listPorts(join(root, 'none'), join(root, 'none')), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

ptyTest('saphir ports --port: the device that answers IDENTIFY is named; a silent port is listed without', async () => {
  const dev = await flashDevice();
  const mute = await flashDevice();
  const pty = await devicePty(dev, 115200);
  const silent = await devicePty(mute, 115200);
  silent.port.close();
  try {
    const r = await saphirIn(['ports', '--json', '--port', pty.path, '--port', silent.path]);
    assert.is(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as { path: string; deviceId: string | null; version: string | null }[];
    const a = list.find((p) => p.path === pty.path);
    const b = list.find((p) => p.path === silent.path);
    assert.equal([a?.deviceId, a?.version], ['SPH-000042', '1.0.0']);
    assert.equal([b?.deviceId, b?.version], [null, null]);
    const text = await saphirIn(['ports', '--lang', 'en', '--port', pty.path]);
    assert.match(text.stdout, new RegExp(`${pty.path}\\s+—\\s+—\\s+—\\s+SPH-000042\\s+1\\.0\\.0`));
  } finally {
    await pty.close();
    await silent.close();
  }
});

test.run();
