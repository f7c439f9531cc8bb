// saphir: the version table held as numbers in one string, a version's object built when asked
// (versionAt), not 40 versions of nested objects held from the first frame on (~950 objects,
// ~70 KiB of the device's heap, issue #34). test/firmware/jsqr-versions.ts keeps jsQR's own table;
// test/firmware/camera.test.ts checks every version against it.
export interface Version {
  infoBits: number | null;
  versionNumber: number;
  alignmentPatternCenters: number[];
  errorCorrectionLevels: Array<{
    ecCodewordsPerBlock: number;
    ecBlocks: Array<{
      numBlocks: number;
      dataCodewordsPerBlock: number;
    }>
  }>;
}

// Version by version: the count of alignment pattern centres, the centres, then for each of the four
// error correction levels: EC codewords per block, the count of block groups, and for each group its
// number of blocks and data codewords per block.
const TABLE =
  '0 7 1 1 19 10 1 1 16 13 1 1 13 17 1 1 9 2 6 18 10 1 1 34 16 1 1 28 22 1 1 22 28 1 1 16 2 6 22 15 1 1 ' +
  '55 26 1 1 44 18 1 2 17 22 1 2 13 2 6 26 20 1 1 80 18 1 2 32 26 1 2 24 16 1 4 9 2 6 30 26 1 1 108 24 ' +
  '1 2 43 18 2 2 15 2 16 22 2 2 11 2 12 2 6 34 18 1 2 68 16 1 4 27 24 1 4 19 28 1 4 15 3 6 22 38 20 1 2 ' +
  '78 18 1 4 31 18 2 2 14 4 15 26 2 4 13 1 14 3 6 24 42 24 1 2 97 22 2 2 38 2 39 22 2 4 18 2 19 26 2 4 ' +
  '14 2 15 3 6 26 46 30 1 2 116 22 2 3 36 2 37 20 2 4 16 4 17 24 2 4 12 4 13 3 6 28 50 18 2 2 68 2 69 ' +
  '26 2 4 43 1 44 24 2 6 19 2 20 28 2 6 15 2 16 3 6 30 54 20 1 4 81 30 2 1 50 4 51 28 2 4 22 4 23 24 2 ' +
  '3 12 8 13 3 6 32 58 24 2 2 92 2 93 22 2 6 36 2 37 26 2 4 20 6 21 28 2 7 14 4 15 3 6 34 62 26 1 4 107 ' +
  '22 2 8 37 1 38 24 2 8 20 4 21 22 2 12 11 4 12 4 6 26 46 66 30 2 3 115 1 116 24 2 4 40 5 41 20 2 11 ' +
  '16 5 17 24 2 11 12 5 13 4 6 26 48 70 22 2 5 87 1 88 24 2 5 41 5 42 30 2 5 24 7 25 24 2 11 12 7 13 4 ' +
  '6 26 50 74 24 2 5 98 1 99 28 2 7 45 3 46 24 2 15 19 2 20 30 2 3 15 13 16 4 6 30 54 78 28 2 1 107 5 ' +
  '108 28 2 10 46 1 47 28 2 1 22 15 23 28 2 2 14 17 15 4 6 30 56 82 30 2 5 120 1 121 26 2 9 43 4 44 28 ' +
  '2 17 22 1 23 28 2 2 14 19 15 4 6 30 58 86 28 2 3 113 4 114 26 2 3 44 11 45 26 2 17 21 4 22 26 2 9 13 ' +
  '16 14 4 6 34 62 90 28 2 3 107 5 108 26 2 3 41 13 42 30 2 15 24 5 25 28 2 15 15 10 16 5 6 28 50 72 94 ' +
  '28 2 4 116 4 117 26 1 17 42 28 2 17 22 6 23 30 2 19 16 6 17 5 6 26 50 74 98 28 2 2 111 7 112 28 1 17 ' +
  '46 30 2 7 24 16 25 24 1 34 13 5 6 30 54 74 102 30 2 4 121 5 122 28 2 4 47 14 48 30 2 11 24 14 25 30 ' +
  '2 16 15 14 16 5 6 28 54 80 106 30 2 6 117 4 118 28 2 6 45 14 46 30 2 11 24 16 25 30 2 30 16 2 17 5 6 ' +
  '32 58 84 110 26 2 8 106 4 107 28 2 8 47 13 48 30 2 7 24 22 25 30 2 22 15 13 16 5 6 30 58 86 114 28 2 ' +
  '10 114 2 115 28 2 19 46 4 47 28 2 28 22 6 23 30 2 33 16 4 17 5 6 34 62 90 118 30 2 8 122 4 123 28 2 ' +
  '22 45 3 46 30 2 8 23 26 24 30 2 12 15 28 16 6 6 26 50 74 98 122 30 2 3 117 10 118 28 2 3 45 23 46 30 ' +
  '2 4 24 31 25 30 2 11 15 31 16 6 6 30 54 78 102 126 30 2 7 116 7 117 28 2 21 45 7 46 30 2 1 23 37 24 ' +
  '30 2 19 15 26 16 6 6 26 52 78 104 130 30 2 5 115 10 116 28 2 19 47 10 48 30 2 15 24 25 25 30 2 23 15 ' +
  '25 16 6 6 30 56 82 108 134 30 2 13 115 3 116 28 2 2 46 29 47 30 2 42 24 1 25 30 2 23 15 28 16 6 6 34 ' +
  '60 86 112 138 30 1 17 115 28 2 10 46 23 47 30 2 10 24 35 25 30 2 19 15 35 16 6 6 30 58 86 114 142 30 ' +
  '2 17 115 1 116 28 2 14 46 21 47 30 2 29 24 19 25 30 2 11 15 46 16 6 6 34 62 90 118 146 30 2 13 115 6 ' +
  '116 28 2 14 46 23 47 30 2 44 24 7 25 30 2 59 16 1 17 7 6 30 54 78 102 126 150 30 2 12 121 7 122 28 2 ' +
  '12 47 26 48 30 2 39 24 14 25 30 2 22 15 41 16 7 6 24 50 76 102 128 154 30 2 6 121 14 122 28 2 6 47 ' +
  '34 48 30 2 46 24 10 25 30 2 2 15 64 16 7 6 28 54 80 106 132 158 30 2 17 122 4 123 28 2 29 46 14 47 ' +
  '30 2 49 24 10 25 30 2 24 15 46 16 7 6 32 58 84 110 136 162 30 2 4 122 18 123 28 2 13 46 32 47 30 2 ' +
  '48 24 14 25 30 2 42 15 32 16 7 6 26 54 82 110 138 166 30 2 20 117 4 118 28 2 40 47 7 48 30 2 43 24 ' +
  '22 25 30 2 10 15 67 16 7 6 30 58 86 114 142 170 30 2 19 118 6 119 28 2 18 47 31 48 30 2 34 24 34 25 ' +
  '30 2 20 15 61 16';

// saphir: parsed once into bytes (every number is under 256), not a number array: ~1 100 numbers kept from
// the first frame on are ~1 KiB so, ~9 KiB of engine values otherwise (issue #34).
let numbers: Uint8Array | null = null;

/** Version `v`'s 18-bit version information (BCH(18,6) of `v`), null below 7 (they carry none). */
export function versionInfoBits(v: number): number | null {
  if (v < 7) return null;
  let r = v << 12;
  for (let i = 17; i >= 12; i--) if (r & (1 << i)) r ^= 0x1f25 << (i - 12);
  return (v << 12) | r;
}

/** Version `v` (1…40) as jsQR's table had it; undefined outside. */
export function versionAt(v: number): Version | undefined {
  if (!(v >= 1 && v <= 40)) return undefined;
  const n = numbers || (numbers = Uint8Array.from(TABLE.split(" "), Number));
  let i = 0;
  // Versions before v are stepped over by their counts, none of their objects built.
  for (let k = 1; k < v; k++) {
    i += 1 + n[i];
    for (let l = 0; l < 4; l++) i += 2 + 2 * n[i + 1];
  }
  const take = () => n[i++];
  const centers: number[] = [];
  for (let c = take(); c > 0; c--) centers.push(take());
  const levels: Version["errorCorrectionLevels"] = [];
  for (let l = 0; l < 4; l++) {
    const ecCodewordsPerBlock = take();
    const ecBlocks: Version["errorCorrectionLevels"][0]["ecBlocks"] = [];
    for (let g = take(); g > 0; g--) ecBlocks.push({ numBlocks: take(), dataCodewordsPerBlock: take() });
    levels.push({ ecCodewordsPerBlock, ecBlocks });
  }
  return { infoBits: versionInfoBits(v), versionNumber: v, alignmentPatternCenters: centers, errorCorrectionLevels: levels };
}
