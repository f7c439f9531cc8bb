// An image upload over the service port (docs/service-protocol.md) as a state machine without I/O: it
// makes each request's payload and judges each reply, and keeps what is left to send. The drivers carry
// the bytes: host/flash-client.ts (async, WRITEs pipelined over a serial line) and hw-sim/service-driver.ts
// (sync, in the simulator's process). Authentication is theirs (the key and the signer differ). Portable.
//
//   const u = Upload.of(image, { chunk, resume });   // or a failure: the image is malformed
//   send BEGIN u.beginPayload(); u.onBegin(reply)     // what the device holds → the chunks to send
//   for (let w; (w = u.nextWrite()); ) send WRITE w.payload; u.onAck(w, ack)
//   send FINISH; u.onFinish(reply)                   // the slot, or why not (its hash is checked)
import { MAX_CHUNK } from './packet.ts';
import {
  WRITE_NOT_AUTHENTICATED,
  WRITE_OK,
  WRITE_UNALIGNED,
  WRITE_MISMATCH,
  beginPayload,
  coveredBytes,
  isRangeList,
  missingRanges,
  readU32le,
  writePayload,
  type Range,
  type SessionReport,
} from './protocol.ts';
import { HEADER_SIZE, parseImage } from '../image/format.ts';
import { toHex } from '../hex.ts';

/** Where an upload stopped. */
export type UploadStage = 'image' | 'identify' | 'auth' | 'abort' | 'begin' | 'write' | 'finish';

/**
 * Why an upload stopped: the device's refusal reason (docs/service-protocol.md); `malformed` for an
 * image that is not one, `protocol` for a reply that is not what the protocol says, `auth` when a WRITE
 * met no session, `write` when a WRITE was refused otherwise (`status`), `verify` when FINISH reports
 * another hash.
 */
export interface UploadFailure {
  stage: UploadStage;
  reason: string;
  detail: string;
  /** A refused WRITE: its offset and the device's status byte. */
  at?: number;
  status?: number;
}

/** One WRITE to send: its range of the image and the request's payload. */
export interface Write {
  range: Range;
  payload: Uint8Array;
}

export interface Finished {
  slot: 'A' | 'B';
  hash: string;
  version: string;
}

type Reply = Record<string, unknown> | null | undefined;

const refusal = (stage: UploadStage, r: Reply): UploadFailure => ({
  stage,
  reason: String(r?.reason ?? 'refused'),
  detail: String(r?.detail ?? ''),
});

export class Upload {
  /** Image bytes the device held when BEGIN answered (a resumed upload). */
  resumedFrom = 0;
  /** Image bytes the device holds, as its acknowledgements say. */
  done = 0;
  /** Image bytes sent in WRITEs, and WRITE requests made. */
  sent = 0;
  writes = 0;
  /** The chunks still to send, in order. */
  private readonly queue: Range[] = [];

  private constructor(
    readonly image: Uint8Array,
    private readonly signedLength: number,
    /** The image's SHA-256, hex: what FINISH must report. */
    readonly hash: string,
    private readonly chunk: number,
    private readonly resume: boolean,
  ) {}

  /**
   * An upload of `image` in chunks of `chunk` bytes (at most MAX_CHUNK); `resume` sends only what the
   * device says it is missing (otherwise every chunk). A malformed image is a failure at once.
   */
  static of(image: Uint8Array, o: { chunk?: number; resume?: boolean } = {}): Upload | UploadFailure {
    const p = parseImage(image);
    if ('error' in p) return { stage: 'image', reason: 'malformed', detail: p.error };
    const chunk = Math.max(1, Math.min(o.chunk ?? MAX_CHUNK, MAX_CHUNK));
    return new Upload(image, p.signedLength, toHex(p.hash), chunk, o.resume !== false);
  }

  get total(): number {
    return this.image.length;
  }

  /** BEGIN's payload: the total size and the signed manifest. */
  beginPayload(): Uint8Array {
    return beginPayload(this.image, this.signedLength, HEADER_SIZE);
  }

  /** BEGIN's reply: a refusal, or null, the chunks to send queued (on chunk boundaries). */
  onBegin(r: Reply): UploadFailure | null {
    if (!r || r.ok !== true) return refusal('begin', r);
    const session = r.session as SessionReport | undefined;
    if (!session || !isRangeList(session.received))
      return { stage: 'begin', reason: 'protocol', detail: 'BEGIN reply malformed' };
    this.plan(this.resume ? session.received : []);
    return null;
  }

  /** Queues every chunk not wholly in `have` (what the device holds), on chunk boundaries. */
  plan(have: readonly Range[]): void {
    this.resumedFrom = coveredBytes(have);
    this.done = this.resumedFrom;
    // A truncated list under-reports what the device holds: the chunks sent again are kept as they are.
    const todo = missingRanges(have, this.total);
    const c = this.chunk;
    for (const [a, b] of todo)
      for (let o = a - (a % c); o < b; o += c) {
        const last = this.queue[this.queue.length - 1];
        if (!last || last[0] !== o) this.queue.push([o, Math.min(o + c, this.total)]);
      }
  }

  /** The next WRITE, or null when every chunk has been sent. */
  nextWrite(): Write | null {
    const r = this.queue.shift();
    if (!r) return null;
    this.sent += r[1] - r[0];
    this.writes++;
    return { range: r, payload: writePayload(r[0], this.image.subarray(r[0], r[1])) };
  }

  /** WRITEs not acknowledged (a silence): sent again first. */
  again(ranges: Range[]): void {
    this.queue.unshift(...ranges);
  }

  /** Whether nothing is left to send. */
  get drained(): boolean {
    return this.queue.length === 0;
  }

  /** A WRITE's acknowledgement (status u8 · offset u32 · bytes held u32): a failure, or null. */
  onAck(w: Write, ack: Uint8Array): UploadFailure | null {
    const at = w.range[0];
    const status = ack.length >= 1 ? ack[0] : -1;
    if (status === WRITE_NOT_AUTHENTICATED)
      return { stage: 'write', reason: 'auth', detail: 'the device ended the authenticated session', at, status };
    if (status !== WRITE_OK) {
      const why =
        status === 1
          ? 'device lost the update session'
          : status === WRITE_UNALIGNED
            ? 'write refused (not a whole chunk)'
            : status === WRITE_MISMATCH
              ? 'write refused (not the image BEGIN named)'
              : 'write refused (out of range)';
      return { stage: 'write', reason: 'write', detail: why, at, status };
    }
    this.done = Math.max(this.done, ack.length >= 9 ? readU32le(ack, 5) : this.done + w.range[1] - w.range[0]);
    return null;
  }

  /** FINISH's reply: the slot, or why not (a refusal, or another hash than the image's). */
  onFinish(r: Reply): Finished | UploadFailure {
    if (!r || r.ok !== true) return refusal('finish', r);
    if (r.hash !== this.hash)
      return { stage: 'finish', reason: 'verify', detail: `device reports hash ${r.hash}, the image has ${this.hash}` };
    return { slot: r.slot === 'B' ? 'B' : 'A', hash: this.hash, version: String(r.version) };
  }
}
