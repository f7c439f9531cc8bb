// Virtual time: a queue of events ordered by (time, insertion). Nothing here waits on the wall clock;
// running advances `now` straight to the next event.

interface Event {
  t: number;
  seq: number;
  id: number;
  fn: () => void;
}

export class Scheduler {
  /** Virtual milliseconds since the simulation started. */
  now = 0;
  private heap: Event[] = [];
  private seq = 0;
  private nextId = 1;
  private cancelled = new Set<number>();

  /** Runs `fn` at virtual time `t` (not before now); returns an id for `cancel`. */
  at(t: number, fn: () => void): number {
    const id = this.nextId++;
    this.push({ t: Math.max(t, this.now), seq: this.seq++, id, fn });
    return id;
  }

  after(ms: number, fn: () => void): number {
    return this.at(this.now + Math.max(0, ms), fn);
  }

  cancel(id: number): void {
    this.cancelled.add(id);
  }

  /** Drops every pending event (a power cut or a reset of the device). */
  clear(): void {
    this.heap = [];
    this.cancelled.clear();
  }

  /** Time of the next live event, or undefined. */
  next(): number | undefined {
    this.skipCancelled();
    return this.heap.length > 0 ? this.heap[0].t : undefined;
  }

  get pending(): number {
    return this.heap.length - this.cancelled.size;
  }

  /** Runs the next event if it is due at or before `limit`; returns false when none is. */
  step(limit = Infinity): boolean {
    this.skipCancelled();
    const e = this.heap[0];
    if (!e || e.t > limit) return false;
    this.pop();
    this.now = e.t;
    e.fn();
    return true;
  }

  /** Runs every event due up to `t`, then sets the time to `t`. `until()` stops early when true. */
  runUntil(t: number, until?: () => boolean): boolean {
    if (until?.()) return true;
    while (this.step(t)) if (until?.()) return true;
    if (t > this.now) this.now = t;
    return until ? until() : false;
  }

  private skipCancelled(): void {
    while (this.heap.length > 0 && this.cancelled.has(this.heap[0].id)) {
      this.cancelled.delete(this.heap[0].id);
      this.pop();
    }
  }

  private less(a: Event, b: Event): boolean {
    return a.t < b.t || (a.t === b.t && a.seq < b.seq);
  }

  private push(e: Event): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l], h[m])) m = l;
        if (r < h.length && this.less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
