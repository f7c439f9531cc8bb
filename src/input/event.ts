// The one output type of every scanner decoder, and the bounded queue they share.

/** `overflow`: events were discarded because nobody read them in time; `lost` says how many. */
export type DropReason = 'timeout' | 'too-long' | 'noise' | 'bad-report' | 'overflow';

export type InputEvent =
  { type: 'code'; text: string } | { type: 'dropped'; reason: DropReason; partial: string; lost?: number };

/**
 * Events waiting to be read; at most `limit`, the oldest are discarded first, and the next read says how
 * many were (an `overflow` event) before the events that were kept.
 */
export class EventQueue {
  private items: InputEvent[] = [];
  private lost = 0;
  constructor(private readonly limit = 32) {}
  push(e: InputEvent): void {
    if (this.items.length >= this.limit) {
      this.items.shift();
      this.lost++;
    }
    this.items.push(e);
  }
  read(): InputEvent | undefined {
    if (this.lost > 0) {
      const lost = this.lost;
      this.lost = 0;
      return { type: 'dropped', reason: 'overflow', partial: '', lost };
    }
    return this.items.shift();
  }
  get length(): number {
    return this.items.length + (this.lost > 0 ? 1 : 0);
  }
}

/** Default longest code accepted by the stream decoders (an SPH1 code is 164 characters). */
export const DEFAULT_MAX_LENGTH = 512;
