// The node-hid adapter against an injected fake module (device choice, reports to codes, error paths), and
// the real module where libusb and libudev let it load.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import {
  HidError,
  openHidScanner,
  parseHidSpec,
  type HidDevice,
  type HidDeviceInfo,
  type HidModule,
  type HidScannerOptions,
} from '../../host/hid.ts';
import type { InputEvent } from '../../src/input/event.ts';
import { codes, reportsOf } from './helpers.ts';
import { ALPHABET } from './helpers.ts';
import { requireTool } from '../helpers.ts';

const withNodeHid = requireTool('node-hid');

class FakeDevice extends EventEmitter implements HidDevice {
  closed = false;
  constructor(readonly path: string) {
    super();
  }
  close() {
    this.closed = true;
  }
}

const SCANNER: HidDeviceInfo[] = [
  { vendorId: 0x0c2e, productId: 0x0b61, path: '/dev/hidraw3', usagePage: 1, usage: 6, product: 'Scanner' },
  { vendorId: 0x0c2e, productId: 0x0b61, path: '/dev/hidraw4', usagePage: 0x8c, usage: 2, product: 'Scanner' },
  { vendorId: 0x046d, productId: 0xc31c, path: '/dev/hidraw0', usagePage: 1, usage: 6, product: 'Keyboard' },
];

function fake(
  opts: { devices?: HidDeviceInfo[]; openError?: string; opened?: FakeDevice[] } = {},
): () => Promise<HidModule> {
  const opened = opts.opened ?? [];
  return async () => ({
    devices: () => (opts.devices ?? SCANNER).slice(),
    HID: class {
      constructor(path: string) {
        if (opts.openError) throw new Error(opts.openError);
        const d = new FakeDevice(path);
        opened.push(d);
        return d as unknown as object;
      }
    } as unknown as HidModule['HID'],
  });
}

/** The HidError of opening a scanner: the 0c2e:0b61 one in POS mode unless `o` says otherwise. */
async function openFails(o: Partial<HidScannerOptions>): Promise<HidError> {
  try {
    await openHidScanner({ device: '0c2e:0b61', mode: 'pos', onEvent: () => {}, ...o });
  } catch (e) {
    assert.instance(e, HidError);
    return e as HidError;
  }
  throw new Error('expected a HidError');
}

test('VID:PID or path', () => {
  assert.equal(parseHidSpec('0c2e:0B61'), { vid: 0x0c2e, pid: 0x0b61 });
  assert.equal(parseHidSpec('0x0c2e:0x0b61'), { vid: 0x0c2e, pid: 0x0b61 });
  assert.equal(parseHidSpec('/dev/hidraw3'), { path: '/dev/hidraw3' });
});

test('keyboard mode opens the keyboard interface; reports become codes', async () => {
  const opened: FakeDevice[] = [];
  const events: InputEvent[] = [];
  const s = await openHidScanner({
    device: '0c2e:0b61',
    mode: 'keyboard',
    load: fake({ opened }),
    onEvent: (e) => events.push(e),
    tickMs: 0,
  });
  assert.is(opened[0].path, '/dev/hidraw3');
  for (const r of reportsOf('fr-alphabet.hid')) opened[0].emit('data', Buffer.from(r));
  assert.equal(codes(events), ['SPH1:' + ALPHABET]);
  s.close();
  assert.ok(opened[0].closed);
});

test('POS mode opens the usage page 0x8C interface; a path opens that device', async () => {
  const opened: FakeDevice[] = [];
  const events: InputEvent[] = [];
  await openHidScanner({
    device: '0c2e:0b61',
    mode: 'pos',
    load: fake({ opened }),
    onEvent: (e) => events.push(e),
    tickMs: 0,
  });
  assert.is(opened[0].path, '/dev/hidraw4');
  for (const r of reportsOf('pos-no-report-id.hid')) opened[0].emit('data', Buffer.from(r));
  assert.equal(codes(events), ['SPH1:' + ALPHABET]);
  await openHidScanner({
    device: '/dev/hidraw0',
    mode: 'keyboard',
    load: fake({ opened }),
    onEvent: () => {},
    tickMs: 0,
  });
  assert.is(opened[1].path, '/dev/hidraw0');
});

test('a read error after opening is passed on', async () => {
  const opened: FakeDevice[] = [];
  const errors: string[] = [];
  await openHidScanner({
    device: '0c2e:0b61',
    mode: 'pos',
    load: fake({ opened }),
    onEvent: () => {},
    onError: (m) => errors.push(m),
    tickMs: 0,
  });
  opened[0].emit('error', new Error('could not read from HID device'));
  assert.equal(errors, ['could not read from HID device']);
});

test('unplug: reported, the scanner looked up again (on a new path) and reopened', async () => {
  const opened: FakeDevice[] = [];
  const devices = [...SCANNER];
  const events: InputEvent[] = [];
  const status: string[] = [];
  const s = await openHidScanner({
    device: '0c2e:0b61',
    mode: 'pos',
    load: fake({ opened, devices }),
    tickMs: 0,
    reopenMs: 5,
    onEvent: (e) => events.push(e),
    onStatus: (st, d) => status.push(`${st} ${d}`),
  });
  devices.splice(0, 2);
  opened[0].emit('error', new Error('could not read from HID device'));
  assert.ok(opened[0].closed);
  assert.is(s.isOpen, false);
  await new Promise((r) => setTimeout(r, 30));
  assert.is(opened.length, 1);
  devices.push({ ...SCANNER[1], path: '/dev/hidraw7' });
  for (let i = 0; i < 100 && opened.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(status, ['unplugged could not read from HID device', 'reopened /dev/hidraw7']);
  assert.ok(s.isOpen);
  for (const r of reportsOf('pos-no-report-id.hid')) opened[1].emit('data', Buffer.from(r));
  opened[0].emit('data', Buffer.from(reportsOf('pos-no-report-id.hid')[0]));
  assert.equal(codes(events), ['SPH1:' + ALPHABET]);
  s.close();
  assert.ok(opened[1].closed);
});

test('libusb or libudev missing: the package to install', async () => {
  const libusb = await openFails({
    load: async () => {
      throw new Error('libusb-1.0.so.0: cannot open shared object file: No such file or directory');
    },
  });
  assert.is(libusb.kind, 'libusb');
  assert.match(libusb.text('fr'), 'apt-get install libusb-1.0-0');
  assert.match(libusb.text('en'), 'apt-get install libusb-1.0-0');
  const udev = await openFails({
    load: async () => ({
      devices: () => {
        throw new Error('libudev.so.1: cannot open shared object file');
      },
      HID: class {} as never,
    }),
  });
  assert.match(udev.text('en'), 'apt-get install libudev1');
});

test('permission denied: the udev rule to add', async () => {
  const e = await openFails({
    load: fake({ openError: 'cannot open device with path /dev/hidraw4' }),
    platform: 'linux',
  });
  assert.is(e.kind, 'permission');
  assert.match(e.text('fr'), 'SUBSYSTEM=="hidraw", ATTRS{idVendor}=="0c2e", ATTRS{idProduct}=="0b61", MODE="0666"');
  assert.match(e.text('en'), 'udevadm control --reload-rules');
  const e2 = await openFails({ load: fake({ openError: 'EACCES: permission denied' }), platform: 'darwin' });
  assert.is(e2.kind, 'permission');
});

test('a keyboard the OS owns: use HID POS or serial mode', async () => {
  const e = await openFails({
    mode: 'keyboard',
    load: fake({ openError: 'cannot open device with path IOService:/…' }),
    platform: 'darwin',
  });
  assert.is(e.kind, 'keyboard-owned');
  assert.match(e.text('fr'), 'mode HID POS');
  assert.match(e.text('en'), '--mode pos');
  assert.match(e.text('en'), '--serial');
});

test('device not found lists what is connected; other open errors are passed on', async () => {
  const e = await openFails({ device: '1234:5678', load: fake() });
  assert.is(e.kind, 'not-found');
  assert.match(e.text('en'), '0c2e:0b61 Scanner (/dev/hidraw3)');
  const e2 = await openFails({ device: '1234:5678', load: fake({ devices: [] }) });
  assert.match(e2.text('fr'), 'aucun périphérique HID 1234:5678');
  const e3 = await openFails({ load: fake({ openError: 'device busy' }), platform: 'win32' });
  assert.is(e3.kind, 'open');
  assert.match(e3.message, 'device busy');
});

withNodeHid('the real node-hid loads: a device that is not there is not-found, with what is connected', async () => {
  const e = await openFails({ device: 'ffff:fffe' });
  assert.is(e.kind, 'not-found', e.message);
  assert.match(e.text('en'), 'no HID device ffff:fffe');
});

test.run();
