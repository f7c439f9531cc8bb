// A technician's computer in the same process as the simulated device: it speaks the service protocol
// (docs/service-protocol.md, src/service/) to a ServicePort on `sim.serviceHost()`, synchronously. The
// port is unpaced, so every request is answered before `receive` returns; a request met by a power cut
// is answered by nothing (the device is dead). Portable: the scenario runner uses it (`update: { via:
// service }`), in Node and in the web page alike.
//
//   const host = sim.serviceHost({ powerLost: () => sim.powerOff('power cut') });
//   const d = new ServiceDriver(host, { now: () => sim.now });
//   const r = d.upload(image, { resume: true });   // IDENTIFY, CHALLENGE, AUTH, BEGIN, WRITE…, FINISH
//
// An upload without `resume` starts afresh (ABORT drops any update the device holds, then every chunk);
// with `resume` it BEGINs and sends only the chunks the device says it is missing, as `saphir flash`
// does after a cut. The upload itself (requests, replies judged, chunks left) is src/service/upload.ts,
// which host/flash-client.ts drives too.
import { ServicePort, type ServiceHost } from '../rom/service.ts';
import { CMD, ERROR, PacketReader, RESPONSE, encodePacket, type Packet } from '../src/service/packet.ts';
import { parseJson } from '../src/service/json.ts';
import { DEV_TECH_SEED_HEX, authMessage } from '../src/service/auth.ts';
import { Upload, type UploadFailure, type UploadStage } from '../src/service/upload.ts';
import { fromHex } from '../src/hex.ts';
import type { Signer } from '../src/crypto/ed25519.ts';
import { simHost } from './host.ts';

export interface DriverOptions {
  /** The technician's Ed25519 private seed (default the published development technician key). */
  techSeed?: Uint8Array;
  /** Signs AUTH (default the simulator host's signer). */
  sign?: Signer;
  /** The device's nonce source and clock (ServicePortOptions): the simulator passes its seeded ones. */
  random?: (n: number) => Uint8Array;
  now?: () => number;
}

export type { UploadStage };

export type UploadResult = (
  | { ok: true; slot: 'A' | 'B'; hash: string; version: string }
  | {
      ok: false;
      stage: UploadStage;
      /**
       * The device's refusal reason (docs/service-protocol.md); `power-cut` when it went silent, `verify`
       * when FINISH reports another hash, `write` when a WRITE was not acknowledged OK.
       */
      reason: string;
      detail: string;
    }
) & {
  /** Bytes of this image the device held when BEGIN answered (a resumed upload). */
  resumedFrom: number;
  /** Image bytes sent in WRITEs. */
  sent: number;
  /** WRITE requests sent. */
  writes: number;
};

type Json = Record<string, unknown>;

export class ServiceDriver {
  readonly port: ServicePort;
  private readonly replies: Packet[] = [];
  private seq = 0;
  private readonly techSeed: Uint8Array;
  private readonly sign: Signer;
  /** The device lost power (the port said so through `powerLost`): nothing it says after that is real. */
  private dead = false;

  constructor(
    readonly host: ServiceHost,
    o: DriverOptions = {},
  ) {
    const reader = new PacketReader((p) => this.replies.push(p), 1 << 16);
    // A cut may strike after a reply has left (the erase ahead of the next chunks): later requests meet a
    // dead device. (The host's own getters stay lazy: `watched` inherits them rather than copying them.)
    const watched = Object.create(host) as ServiceHost;
    watched.powerLost = () => {
      this.dead = true;
      host.powerLost?.();
    };
    this.port = new ServicePort(watched, { send: (b) => reader.push(b), random: o.random, now: o.now });
    this.techSeed = o.techSeed ?? fromHex(DEV_TECH_SEED_HEX);
    this.sign = o.sign ?? simHost().sign;
  }

  /** Sends one request; its reply, or null when the device answered nothing (it lost power). */
  request(type: number, payload: Uint8Array = new Uint8Array(0)): Packet | null {
    if (this.dead) return null;
    this.seq = (this.seq + 1) & 0xffff;
    const seq = this.seq;
    const from = this.replies.length;
    this.port.receive(encodePacket({ type, seq, payload }));
    const got = this.replies.splice(from);
    if (this.dead && got.length === 0) return null;
    return got.find((p) => p.seq === seq && (p.type === (type | RESPONSE) || p.type === ERROR)) ?? null;
  }

  /** A request whose reply is JSON; null when the device answered nothing. */
  json(type: number, payload?: Uint8Array): Json | null {
    const p = this.request(type, payload);
    if (!p) return null;
    const v = parseJson(p.payload);
    return v && typeof v === 'object' ? (v as Json) : { ok: false, reason: 'malformed', detail: 'reply is not JSON' };
  }

  /** IDENTIFY, CHALLENGE, then AUTH signed with the technician key; the refusal, or null when the session is open. */
  authenticate(): { stage: UploadStage; reason: string; detail: string } | null {
    const id = this.json(CMD.IDENTIFY);
    if (!id) return silent('identify');
    const boardId = id.boardId;
    if (typeof boardId !== 'number')
      return { stage: 'identify', reason: 'malformed', detail: 'IDENTIFY without boardId' };
    const c = this.json(CMD.CHALLENGE);
    if (!c) return silent('auth');
    if (c.ok !== true || typeof c.nonce !== 'string') return refusal('auth', c);
    const sig = this.sign(authMessage(boardId, this.host.deviceId, fromHex(c.nonce)), this.techSeed);
    const a = this.json(CMD.AUTH, sig);
    if (!a) return silent('auth');
    return a.ok === true ? null : refusal('auth', a);
  }

  /**
   * Uploads `image` into the device's inactive slot and FINISHes it (marked for one test boot; the device
   * is not rebooted), one request at a time (the upload itself: src/service/upload.ts). Never throws for
   * what the device does: a refusal or a silence is the result.
   */
  upload(image: Uint8Array, o: { resume?: boolean } = {}): UploadResult {
    const u = Upload.of(image, { resume: !!o.resume });
    const stop = (r: UploadFailure): UploadResult => {
      const counts = 'stage' in u ? { resumedFrom: 0, sent: 0, writes: 0 } : u;
      return { ok: false, ...r, resumedFrom: counts.resumedFrom, sent: counts.sent, writes: counts.writes };
    };
    if ('stage' in u) return stop(u);
    const denied = this.authenticate();
    if (denied) return stop(denied);
    if (!o.resume) {
      const a = this.json(CMD.ABORT);
      if (!a) return stop(silent('abort'));
      if (a.ok !== true) return stop(refusal('abort', a));
    }
    const b = this.json(CMD.BEGIN, u.beginPayload());
    if (!b) return stop(silent('begin'));
    const refused = u.onBegin(b);
    if (refused) return stop(refused);
    for (let w = u.nextWrite(); w; w = u.nextWrite()) {
      const ack = this.request(CMD.WRITE, w.payload);
      if (!ack) return stop(silent('write'));
      const bad = ack.type === ERROR ? { status: 'ERROR' } : u.onAck(w, ack.payload);
      if (bad)
        return stop({
          stage: 'write',
          reason: 'write',
          detail: `WRITE at ${w.range[0]} answered status ${bad.status ?? ack.payload[0]}`,
        });
    }
    const f = this.json(CMD.FINISH);
    if (!f) return stop(silent('finish'));
    const r = u.onFinish(f);
    if ('stage' in r) return stop(r);
    return { ok: true, ...r, resumedFrom: u.resumedFrom, sent: u.sent, writes: u.writes };
  }

  /** Stops the port's timers (none run unpaced; for symmetry with a paced port). */
  close(): void {
    this.port.close();
  }
}

function silent(stage: UploadStage) {
  return { stage, reason: 'power-cut', detail: `no answer to ${stage.toUpperCase()}: the device lost power` };
}

function refusal(stage: UploadStage, r: Json) {
  return { stage, reason: String(r.reason ?? 'refused'), detail: String(r.detail ?? '') };
}
