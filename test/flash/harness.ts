// The device of the flash tests is hw-sim's own Simulator, with its firmware modelled by its confirm
// (SimOptions.firmwareModel: the test images are not bundles), in a factory state: FACTORY in slot A,
// five payments in the ledger. Its service port in this process (`directPort`, or a ServicePort on
// `dev.serviceHost()`), or on a real pseudo-terminal (`devicePty`, socat).
import { bootChip, Simulator } from '../../hw-sim/sim.ts';
import { provision } from '../../rom/bootloader.ts';
import { NorFlash } from '../../hw-sim/nor-flash.ts';
import { exposeServicePort, type ServicePty } from '../../hw-sim/pty.ts';
import { LAYOUT } from '../../rom/layout.ts';
import { MirroredLedger } from '../../src/ledger/index.ts';
import { image } from './images.ts';
import type { Trust } from '../../rom/provision.ts';
import { ServicePort, type ServiceHost } from '../../rom/service.ts';
import { CMD, PacketReader, encodePacket, type Packet } from '../../src/service/packet.ts';
import { parseJson } from '../../src/service/json.ts';
import { DEV_TECH_SEED_HEX, authMessage } from '../../src/service/auth.ts';
import { BOARD_ID } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';
import { saphirIn } from '../cli/run-cli.ts';
import { requireTool } from '../helpers.ts';
import type { Link } from '../../host/flash-client.ts';

export const FACTORY = image({ version: '1.0.0', counter: 1, size: 30000, salt: 1 });
export const DEVICE_ID = 'SPH-000042';

let template: Uint8Array | null = null;

/**
 * A powered-on device in its factory state (or, `provisioned`, a chip provisioned with these trust
 * anchors and `factory`, signed for them, in slot A). Its self-test passes unless
 * `dev.firmwareModel.selfTestPasses` is set false.
 */
export async function flashDevice(
  o: { provisioned?: Partial<Omit<Trust, 'provisioned'>>; factory?: Uint8Array } = {},
): Promise<Simulator> {
  const firmwareModel = { selfTestPasses: true };
  let sim: Simulator;
  if (o.provisioned) {
    sim = new Simulator({ deviceId: DEVICE_ID, firmwareModel, ...o.provisioned });
    sim.trust();
    provision(bootChip(sim.chip), o.factory ?? FACTORY, 1);
  } else {
    if (!template) {
      const nor = new NorFlash();
      provision(bootChip(nor), FACTORY, 1);
      const ledger = MirroredLedger.open(nor.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), {
        deviceId: DEVICE_ID,
      });
      for (let i = 0; i < 5; i++) {
        ledger.record({
          emission: 1,
          block: 7,
          number: 1000 + i,
          prizeEur: 20 * (i + 1),
          paidAtMs: Date.UTC(2026, 10, 1 + i, 10),
        });
      }
      template = nor.bytes.slice();
    }
    sim = new Simulator({ chip: new NorFlash({ bytes: template }), deviceId: DEVICE_ID, firmwareModel });
  }
  await sim.boot();
  return sim;
}

/** Bytes of the chip outside the update path: the ledger and config partitions. */
export function dataSnapshot(dev: Simulator): Buffer {
  return Buffer.from(dev.chip.bytes.subarray(LAYOUT.config.offset, LAYOUT.ledger.offset + LAYOUT.ledger.size));
}

/** The device's service port on a real pseudo-terminal; `over` replaces parts of its ServiceHost. */
export function devicePty(dev: Simulator, baud = 921600, over: Partial<ServiceHost> = {}): Promise<ServicePty> {
  return exposeServicePort(dev.serviceHost(over), { baud });
}

/** An unpaced ServicePort on `dev` with its replies collected; `ask` sends one request and returns its reply. */
export function directPort(dev: Simulator | ServiceHost, opts: { now?: () => number } = {}) {
  const host = dev instanceof Simulator ? dev.serviceHost() : dev;
  const replies: Packet[] = [];
  const reader = new PacketReader((p) => replies.push(p), 1 << 16);
  const port = new ServicePort(host, { send: (b) => reader.push(b), now: opts.now });
  let seq = 0;
  const ask = (type: number, payload: Uint8Array = new Uint8Array(0)): Packet => {
    const n = replies.length;
    port.receive(encodePacket({ type, seq: ++seq, payload }));
    if (replies.length !== n + 1) throw new Error(`no single reply to 0x${type.toString(16)}`);
    return replies[n];
  };
  const json = (type: number, payload?: Uint8Array) => parseJson(ask(type, payload).payload) as Record<string, unknown>;
  /** CHALLENGE and the AUTH answering it (signed by `seed`, default the development technician key); AUTH's reply and the signature. */
  const authenticate = (seed = fromHex(DEV_TECH_SEED_HEX)) => {
    const c = json(CMD.CHALLENGE);
    const sig = nodeSign(authMessage(BOARD_ID, host.deviceId, fromHex(String(c.nonce))), seed);
    return { reply: json(CMD.AUTH, sig), sig };
  };
  return { port, replies, ask, json, authenticate };
}

/**
 * Opens an authenticated session on a port a test drives by hand (CHALLENGE, AUTH with the development
 * technician key). `last()` is the newest reply the test's reader holds; paced ports answer later.
 */
export async function authenticatePort(
  port: ServicePort,
  dev: { deviceId: string },
  last: () => Packet | undefined,
): Promise<void> {
  const reply = async (type: number) => {
    for (const t0 = performance.now(); performance.now() - t0 < 5000; await new Promise((r) => setTimeout(r, 1))) {
      const p = last();
      if (p && p.type === (type | 0x80)) return parseJson(p.payload) as Record<string, unknown>;
    }
    throw new Error(`no reply to 0x${type.toString(16)}`);
  };
  port.receive(encodePacket({ type: CMD.CHALLENGE, seq: 0xfff0, payload: new Uint8Array(0) }));
  const c = await reply(CMD.CHALLENGE);
  const sig = nodeSign(authMessage(BOARD_ID, dev.deviceId, fromHex(String(c.nonce))), fromHex(DEV_TECH_SEED_HEX));
  port.receive(encodePacket({ type: CMD.AUTH, seq: 0xfff1, payload: sig }));
  const a = await reply(CMD.AUTH);
  if (a.ok !== true) throw new Error(`AUTH refused: ${String(a.detail)}`);
}

/** The CLI's options that reach the device on `pty` at `baud`. */
export const portArgs = (pty: { path: string }, baud: number) => ['--port', pty.path, '--baud', String(baud)];

/**
 * `saphir` in this process on the device's pty: `onPty(pty, BAUD, 'flash', '--lang', 'en', file)` runs
 * `saphir flash --port PTY --baud BAUD --lang en FILE` (`'device info'`, `'ledger export'`: two words).
 */
export function onPty(pty: { path: string }, baud: number, command: string, ...rest: string[]) {
  return saphirIn([...command.split(' '), ...portArgs(pty, baud), ...rest]);
}

/**
 * A ServicePort on `host` and a `link` to it in this process (unpaced, no pty), what a ServiceClient
 * takes instead of a serial port. `lose(err)` is the device losing power: the port stops answering and
 * the client sees the line close.
 */
export function portLink(host: ServiceHost): { port: ServicePort; link: Link; lose(err: Error): void } {
  let toHost: (b: Uint8Array) => void = () => {};
  let closed: (err?: Error) => void = () => {};
  let dead = false;
  const port = new ServicePort(host, { send: (b) => !dead && toHost(b) });
  const link: Link = {
    write(b) {
      if (!dead) port.receive(b.slice());
    },
    onData: (cb) => (toHost = cb),
    onClose: (cb) => (closed = cb),
    close: async () => {},
  };
  const lose = (err: Error) => {
    dead = true;
    port.close();
    queueMicrotask(() => closed(err));
  };
  return { port, link, lose };
}

/** Registers a test that needs a real pseudo-terminal (socat): skipped, with the install command, without it. */
export const ptyTest = requireTool('socat');

/** Runs `f` with `dev`'s service port on a pty at `baud` (devicePty); the pty closes after, whatever happens. */
export async function withPty(dev: Simulator, baud: number, f: (pty: ServicePty) => Promise<void>): Promise<void> {
  const pty = await devicePty(dev, baud);
  try {
    await f(pty);
  } finally {
    await pty.close();
  }
}
