// The one output type of every scanner decoder, and the bounded queue they share.

export type DropReason = 'timeout' | 'too-long' | 'noise' | 'bad-report';

export type InputEvent =
  | { type: 'code'; text: string }
  | { type: 'dropped'; reason: DropReason; partial: string };

/** Events waiting to be read; at most `limit`, the oldest are discarded first. */
export class EventQueue {
  private items: InputEvent[] = [];
  constructor(private readonly limit = 32) {}
  push(e: InputEvent): void {
    if (this.items.length >= this.limit) this.items.shift();
    this.items.push(e);
  }
  read(): InputEvent | undefined {
    return this.items.shift();
  }
  get length(): number {
    return this.items.length;
  }
}

/** Default longest code accepted by the stream decoders (an SPH1 code is 164 characters). */
export const DEFAULT_MAX_LENGTH = 512;
