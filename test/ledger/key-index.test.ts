// The ledger's in-RAM index (src/ledger/key-index.ts) against a model that cannot be wrong (a Map from
// key to location, the keys "on flash" in an array), under random inserts, moves and removals with
// many keys sharing a fingerprint; then the whole ledger with keys chosen to collide, against a Map of
// what was paid, through compactions and reopenings (which rebuild the index from flash).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyIndex, fingerprint, keyHash } from '../../src/ledger/key-index.ts';
import { NorFlash, seeded } from '../../hw-sim/nor-flash.ts';
import { Ledger, LedgerFull, type Payment } from '../../src/ledger/index.ts';

test('fingerprints: 1…255, never 0, spread evenly', () => {
  const seen = new Array<number>(256).fill(0);
  for (let n = 0; n < 256 * 400; n++) seen[fingerprint(keyHash(1, n >> 12, n & 4095))]++;
  assert.is(seen[0], 0);
  for (let f = 1; f < 256; f++) assert.ok(seen[f] > 300 && seen[f] < 520, `fingerprint ${f}: ${seen[f]} of 102 400`);
});

test("a full log's scan: the filter keeps all but ~5 000 of its lookups off flash (21 914 with two bits a key)", () => {
  // As Ledger.scan fills a full log of the device partition: each slot's key looked up, then inserted.
  const idx = new KeyIndex(254 * 102);
  idx.scanning(true);
  let reads = 0; // the slot reads a lookup makes: one a location holding the key's fingerprint
  for (let i = 0; i < 25_908; i++) {
    const h = keyHash(1, 1 + (i >> 12), i & 4095);
    assert.is(
      idx.find(h, () => (reads++, false)),
      -1,
    );
    idx.insert(h, i);
  }
  assert.ok(reads <= 6000, `${reads} slot reads`);
  idx.scanning(false);
  assert.is(
    idx.find(keyHash(1, 1, 7), (loc) => loc === 7),
    7,
    'every key found after the scan',
  );
});

test('KeyIndex finds exactly what a Map finds, through inserts, moves and removals', () => {
  for (const seed of [1, 2, 3]) {
    const rnd = seeded(seed);
    const LOCS = 3000;
    const idx = new KeyIndex(LOCS);
    const onFlash: (number | undefined)[] = new Array(LOCS); // the key number a location holds
    const model = new Map<number, number>(); // key number → location
    const free = () => {
      for (;;) {
        const l = Math.floor(rnd() * LOCS);
        if (onFlash[l] === undefined) return l;
      }
    };
    const h = (k: number) => keyHash(7, 3, k);
    const lookup = (k: number) => idx.find(h(k), (loc) => onFlash[loc] === k);
    for (let step = 0; step < 20_000; step++) {
      const r = rnd();
      // As a scan uses it: the filter from an empty index on (it knows only keys inserted since), then off.
      if (step === 0) idx.scanning(true);
      if (step === 6000) idx.scanning(false);
      const k = Math.floor(rnd() * 4000); // more keys than locations: fingerprints collide
      if (r < 0.45 && model.size < LOCS - 10) {
        if (model.has(k)) continue;
        const loc = free();
        idx.insert(h(k), loc);
        onFlash[loc] = k;
        model.set(k, loc);
      } else if (r < 0.65 && model.has(k)) {
        const from = model.get(k)!;
        const to = free();
        idx.move(from, to);
        onFlash[to] = k;
        onFlash[from] = undefined;
        model.set(k, to);
      } else if (r < 0.8 && model.has(k)) {
        const loc = model.get(k)!;
        idx.remove(loc);
        onFlash[loc] = undefined;
        model.delete(k);
      } else {
        assert.is(lookup(k), model.get(k) ?? -1, `seed ${seed} step ${step}: key ${k}`);
      }
      if (step % 2000 === 0) {
        for (let q = 0; q < 4000; q++) assert.is(lookup(q), model.get(q) ?? -1, `seed ${seed} step ${step}: key ${q}`);
        for (let loc = 0; loc < LOCS; loc++) assert.is(idx.live(loc), onFlash[loc] !== undefined, `live ${loc}`);
        assert.is(idx.count, model.size);
      }
    }
  }
});

test('a slim index (1 bit a location) tells live locations as the full one does, through inserts, moves and removals', () => {
  const rnd = seeded(4);
  const LOCS = 3000;
  const full = new KeyIndex(LOCS);
  const slim = new KeyIndex(LOCS);
  const onFlash: (number | undefined)[] = new Array(LOCS);
  const at = new Map<number, number>();
  const free = () => {
    for (;;) {
      const l = Math.floor(rnd() * LOCS);
      if (onFlash[l] === undefined) return l;
    }
  };
  for (let step = 0; step < 8000; step++) {
    if (step === 2000) {
      slim.slimDown();
      assert.ok(slim.slim && !full.slim);
      assert.ok(slim.bytes <= Math.ceil(full.bytes / 8), `${slim.bytes} bytes against ${full.bytes}`);
    }
    const k = Math.floor(rnd() * 4000);
    const r = rnd();
    const h = keyHash(7, 3, k);
    if (r < 0.5 && !at.has(k) && at.size < LOCS - 10) {
      const loc = free();
      for (const i of [full, slim]) i.insert(h, loc);
      onFlash[loc] = k;
      at.set(k, loc);
    } else if (r < 0.75 && at.has(k)) {
      const to = free();
      for (const i of [full, slim]) i.move(at.get(k)!, to);
      onFlash[at.get(k)!] = undefined;
      onFlash[to] = k;
      at.set(k, to);
    } else if (at.has(k)) {
      for (const i of [full, slim]) i.remove(at.get(k)!);
      onFlash[at.get(k)!] = undefined;
      at.delete(k);
    }
    if (step % 1000 === 999) {
      for (let loc = 0; loc < LOCS + 20; loc++) {
        assert.is(slim.live(loc), onFlash[loc] !== undefined, `step ${step}: live ${loc}`);
        assert.is(full.live(loc), onFlash[loc] !== undefined, `step ${step}: live ${loc}`);
      }
      assert.is(slim.count, at.size);
    }
  }
});

test('the ledger with colliding fingerprints: finds what was paid, nothing else, across compactions and reopenings', () => {
  // Keys of one fingerprint only, half of them paid: every lookup meets many candidates on flash.
  const f0 = fingerprint(keyHash(3, 0, 0));
  const keys: { emission: number; block: number; number: number }[] = [];
  for (let n = 0; keys.length < 1200; n++)
    if (fingerprint(keyHash(3, n % 7, n)) === f0) keys.push({ emission: 3, block: n % 7, number: n });
  const chip = new NorFlash({ size: 48 * 4096, sectorSize: 4096 });
  let l = Ledger.open(chip);
  const paid = new Map<string, Payment>();
  const id = (k: { block: number; number: number }) => `${k.block}-${k.number}`;
  const rnd = seeded(9);
  let t = 1_780_000_000_000;
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 300; i++) {
      const k = keys[Math.floor(rnd() * keys.length)];
      if (paid.has(id(k))) continue;
      const p: Payment = { ...k, prizeEur: 10, paidAtMs: t++, deviceId: 'SAPH-0042' };
      try {
        l.record(p);
      } catch (e) {
        if (e instanceof LedgerFull) break;
        throw e;
      }
      paid.set(id(k), p);
    }
    if (round % 2 === 1) {
      const drop = (p: Payment) => p.number % 3 === round % 3;
      l.compact((p) => !drop(p));
      for (const [k, p] of paid) if (drop(p)) paid.delete(k);
    }
    if (round % 3 === 2) l = Ledger.open(chip);
    for (const k of keys) assert.equal(l.find(k), paid.get(id(k)), `round ${round}: ${id(k)}`);
    assert.is(l.count, paid.size);
  }
});

test.run();
