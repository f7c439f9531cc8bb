// The serial host adapter: @serialport/binding-mock for the fast cases, then a real pseudo-terminal pair
// (socat) read through the native @serialport/bindings-cpp binding.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, writeSync, closeSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openSerialScanner, SerialOpenError, type BindingInterface, type SerialScanner } from '../../host/serial.ts';
import type { InputEvent } from '../../src/input/event.ts';
import { loadVectors, requireTool } from '../helpers.ts';

const withSocat = requireTool('socat');

// binding-mock ships types for require() only; this is the part the tests use.
interface MockPortBinding {
  emitData(data: Buffer | string): void;
  recording: Buffer;
  read: (...args: unknown[]) => Promise<unknown>;
}
const { MockBinding } = createRequire(import.meta.url)('@serialport/binding-mock') as {
  MockBinding: { reset(): void; createPort(path: string, opt?: { record?: boolean }): void };
};
const mock = MockBinding as unknown as BindingInterface;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(5);
  }
}

test('mock port: codes in any chunking, ACK written back', async () => {
  MockBinding.reset();
  MockBinding.createPort('/dev/SCAN0', { record: true });
  const events: InputEvent[] = [];
  const s = await openSerialScanner({
    path: '/dev/SCAN0',
    binding: mock,
    framing: { ack: true },
    onEvent: (e) => events.push(e),
  });
  const port = s.stream!.port as unknown as MockPortBinding;
  port.emitData(Buffer.from(']Q1SPH1:AB'));
  port.emitData(Buffer.from('C\r\nSPH1:D\t'));
  await until(() => events.length === 2);
  assert.equal(events, [
    { type: 'code', text: 'SPH1:ABC' },
    { type: 'code', text: 'SPH1:D' },
  ]);
  await until(() => port.recording.length === 2);
  assert.equal([...port.recording], [0x06, 0x06]);
  await s.close();
  assert.is(s.isOpen, false);
});

test('mock port: a missing port is a clear error', async () => {
  MockBinding.reset();
  try {
    await openSerialScanner({ path: '/dev/NOPE', binding: mock, onEvent: () => {} });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, SerialOpenError);
    assert.match((e as SerialOpenError).text('fr'), "impossible d'ouvrir /dev/NOPE");
  }
});

test('mock port: unplug is reported, the port reopened when it returns, codes read again', async () => {
  MockBinding.reset();
  MockBinding.createPort('/dev/SCAN1');
  const events: InputEvent[] = [];
  const status: string[] = [];
  const s = await openSerialScanner({
    path: '/dev/SCAN1',
    binding: mock,
    reopenMs: 20,
    onEvent: (e) => events.push(e),
    onStatus: (st) => status.push(st),
  });
  const port = s.stream!.port as unknown as MockPortBinding;
  // The next read fails as a read on an unplugged USB serial device does.
  port.read = () => Promise.reject(new Error('Input/output error'));
  MockBinding.reset();
  port.emitData(Buffer.from('x'));
  await until(() => status.includes('unplugged'));
  await sleep(60);
  assert.is(s.isOpen, false);
  MockBinding.createPort('/dev/SCAN1');
  await until(() => status.includes('reopened'));
  (s.stream!.port as unknown as MockPortBinding).emitData(Buffer.from('SPH1:BACK\r'));
  await until(() => events.some((e) => e.type === 'code'));
  assert.equal(
    events.filter((e) => e.type === 'code'),
    [{ type: 'code', text: 'SPH1:BACK' }],
  );
  assert.equal(status.slice(0, 3), ['open', 'unplugged', 'reopened']);
  await s.close();
});

// socat prints "N PTY is /dev/pts/X" for each end.
async function socatPair(links?: [string, string]): Promise<{ proc: ChildProcess; a: string; b: string }> {
  const ends = links ? links.map((l) => `pty,raw,echo=0,link=${l}`) : ['pty,raw,echo=0', 'pty,raw,echo=0'];
  const proc = spawn('socat', ['-d', '-d', ...ends], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ptys: string[] = [];
  let err = '';
  await new Promise<void>((resolve, reject) => {
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      for (const m of err.matchAll(/PTY is (\S+)/g)) if (!ptys.includes(m[1])) ptys.push(m[1]);
      if (ptys.length === 2) resolve();
    });
    proc.on('error', reject);
    proc.on('exit', () => reject(new Error(`socat exited: ${err}`)));
  });
  // socat names its ptys before it makes the links: under load, a test could look for a link too soon.
  if (links) await until(() => links.every((l) => existsSync(l)));
  return { proc, a: links ? links[0] : ptys[0], b: links ? links[1] : ptys[1] };
}

function stop(p: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (p.exitCode !== null) return r();
    p.once('exit', () => r());
    p.kill();
  });
}

withSocat('real pty pair (socat) through the native binding: a real SPH1 code, noise, every terminator', async () => {
  const { proc, a, b } = await socatPair();
  let s: SerialScanner | undefined;
  try {
    const events: InputEvent[] = [];
    s = await openSerialScanner({ path: a, baud: 115200, onEvent: (e) => events.push(e) });
    const code = loadVectors().vectors[1].code;
    const fd = openSync(b, 'r+');
    writeSync(fd, Buffer.from(`\x00\xff]Q1${code}\r\nSPH1:A\nSPH1:B\t\x02SPH1:C\x03`, 'latin1'));
    await until(() => events.length >= 4);
    closeSync(fd);
    assert.equal(
      events.map((e) => e.type === 'code' && e.text),
      [code, 'SPH1:A', 'SPH1:B', 'SPH1:C'],
    );
  } finally {
    await s?.close();
    await stop(proc);
  }
});

withSocat('real pty: socat killed (unplug) then restarted on the same path (replug)', async () => {
  const base = `/tmp/saphir-input-test-${process.pid}`;
  const links: [string, string] = [`${base}-scanner`, `${base}-host`];
  let pair = await socatPair(links);
  let s: SerialScanner | undefined;
  try {
    const events: InputEvent[] = [];
    const status: string[] = [];
    s = await openSerialScanner({
      path: links[1],
      reopenMs: 50,
      onEvent: (e) => events.push(e),
      onStatus: (st) => status.push(st),
    });
    await stop(pair.proc);
    await until(() => status.includes('unplugged'));
    pair = await socatPair(links);
    await until(() => status.includes('reopened'));
    const fd = openSync(links[0], 'r+');
    writeSync(fd, 'SPH1:AGAIN\r');
    await until(() => events.length > 0);
    closeSync(fd);
    assert.equal(events, [{ type: 'code', text: 'SPH1:AGAIN' }]);
  } finally {
    await s?.close();
    await stop(pair.proc);
    assert.not.ok(existsSync(links[0]) && pair.proc.exitCode === null);
  }
});

test.run();
