// A simulated device for the flash tests: the shared NOR chip, the bootloader, a few payments in the
// ledger, and the firmware modelled by its confirm (after a "self-test" that can be told to fail).
// Its service port is exposed as a real pseudo-terminal (socat) when `pty()` is called.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bootSelect, provision, type BootedImage, type NorChip } from '../../hw-sim/bootloader.ts';
import type { ServiceHost } from '../../hw-sim/service.ts';
import { exposeServicePort, type ServicePty } from '../../hw-sim/pty.ts';
import { LAYOUT } from '../../hw-sim/layout.ts';
import { MirroredLedger, readLedgerPartition } from '../../src/ledger/index.ts';
import { NorFlash, norChip } from './chip.ts';
import { image } from './images.ts';
import { ROOT } from '../helpers.ts';
import { provisionTrust, type Trust } from '../../hw-sim/provision.ts';
import { ServicePort } from '../../hw-sim/service.ts';
import { CMD, PacketReader, encodePacket, type Packet } from '../../src/service/packet.ts';
import { parseJson } from '../../src/service/json.ts';
import { DEV_TECH_SEED_HEX, authMessage } from '../../src/service/auth.ts';
import { BOARD_ID } from '../../src/image/format.ts';
import { fromHex } from '../../src/hex.ts';
import { nodeSign } from '../../tools/node-crypto.ts';

export const FACTORY = image({ version: '1.0.0', counter: 1, size: 30000, salt: 1 });

let template: Uint8Array | null = null;

export class TestDevice implements ServiceHost {
  readonly nor: NorFlash;
  readonly chip: NorChip;
  readonly deviceId = 'SPH-000042';
  current: BootedImage | null = null;
  boots = 0;
  /** The firmware's self-test result: false leaves a test-mode image unconfirmed. */
  selfTestPasses = true;
  ptyBridge: ServicePty | null = null;
  /** What a test does when a flash operation of the service port met a power cut. */
  powerLost?: () => void;

  /** `provisioned`: a chip provisioned with these trust anchors, `factory` (signed for them) in slot A. */
  constructor(o: { provisioned?: Partial<Omit<Trust, 'provisioned'>>; factory?: Uint8Array } = {}) {
    if (o.provisioned) {
      this.nor = new NorFlash();
      this.chip = norChip(this.nor);
      provisionTrust(this.chip, o.provisioned);
      provision(this.chip, o.factory ?? FACTORY, 1);
      this.start();
      return;
    }
    if (!template) {
      // Factory state, made once: FACTORY in slot A, five payments in the ledger.
      const nor = new NorFlash();
      provision(norChip(nor), FACTORY, 1);
      const ledger = MirroredLedger.open(nor.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size), {
        deviceId: this.deviceId,
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
    this.nor = new NorFlash({ bytes: template });
    this.chip = norChip(this.nor);
    this.start();
  }

  running(): BootedImage | null {
    return this.current;
  }

  start(): void {
    this.boots++;
    const b = bootSelect(this.chip);
    this.current = 'error' in b ? null : b;
    if (this.current?.pendingConfirm && this.selfTestPasses) this.current.confirm();
  }

  reboot(): void {
    this.start();
  }

  ledgerEntries(): unknown[] {
    return readLedgerPartition(this.nor.partition(LAYOUT.ledger.offset, LAYOUT.ledger.size));
  }

  /** Bytes of the chip outside the update path: the ledger and config partitions. */
  dataSnapshot(): Buffer {
    return Buffer.from(this.nor.bytes.subarray(LAYOUT.config.offset, LAYOUT.ledger.offset + LAYOUT.ledger.size));
  }

  async pty(baud = 921600): Promise<ServicePty> {
    this.ptyBridge = await exposeServicePort(this, { baud });
    return this.ptyBridge;
  }

  async close(): Promise<void> {
    await this.ptyBridge?.close();
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `saphir ARGS…` in a child process (the real CLI, on the real pty). */
export function saphir(args: string[], opts: { timeoutMs?: number; tty?: boolean } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, join(ROOT, 'bin', 'saphir.mjs'), ...args];
    // tty: util-linux `script` runs it on a pseudo-terminal (stdout and stderr both arrive on stdout).
    const p = opts.tty
      ? spawn('script', ['-qfec', argv.map((a) => JSON.stringify(a)).join(' '), '/dev/null'], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(argv[0], argv.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `saphir ARGS…` in this process, still over the real pty. */
export { saphirIn } from '../cli/run-cli.ts';

/** An unpaced ServicePort on `dev` with its replies collected; `ask` sends one request and returns its reply. */
export function directPort(dev: ServiceHost, opts: { now?: () => number } = {}) {
  const replies: Packet[] = [];
  const reader = new PacketReader((p) => replies.push(p), 1 << 16);
  const port = new ServicePort(dev, { send: (b) => reader.push(b), now: opts.now });
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
    const sig = nodeSign(authMessage(BOARD_ID, dev.deviceId, fromHex(String(c.nonce))), seed);
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
  dev: ServiceHost,
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
