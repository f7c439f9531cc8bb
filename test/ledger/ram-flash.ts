// A NOR flash in RAM as JavaScript text, for code evaluated inside a QuickJS VM (the ledger's test and
// benchmark there): `const flash` of `size` bytes in 4 KiB blocks; writes only clear bits.
export function ramFlashJs(size: number): string {
  return `
const BL = 4096, SIZE = ${size};
const mem = new Uint8Array(SIZE).fill(0xff);
const flash = {
  size: SIZE, blockLength: BL,
  read: (o, n) => mem.slice(o, o + n),
  write: (b, o) => { for (let i = 0; i < b.length; i++) mem[o + i] &= b[i]; },
  eraseBlock: (k) => { mem.fill(0xff, k * BL, (k + 1) * BL); },
};
`;
}
