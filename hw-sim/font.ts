// A 5×8 bitmap font for the simulated character display: the classic 5×7 LCD glyphs (one byte a
// column, bit 0 at the top), Latin-1 accented letters drawn from their base letter, and €.

const ASCII = [
  '0000000000',
  '00005f0000',
  '0007000700',
  '147f147f14',
  '242a7f2a12',
  '2313086462',
  '3649552250',
  '0005030000',
  '001c224100',
  '0041221c00',
  '082a1c2a08',
  '08083e0808',
  '0050300000',
  '0808080808',
  '0060600000',
  '2010080402',
  '3e5149453e',
  '00427f4000',
  '4261514946',
  '2141454b31',
  '1814127f10',
  '2745454539',
  '3c4a494930',
  '0171090503',
  '3649494936',
  '064949291e',
  '0036360000',
  '0056360000',
  '0008142241',
  '1414141414',
  '4122140800',
  '0201510906',
  '324979413e',
  '7e1111117e',
  '7f49494936',
  '3e41414122',
  '7f4141221c',
  '7f49494941',
  '7f09090101',
  '3e41415132',
  '7f0808087f',
  '00417f4100',
  '2040413f01',
  '7f08142241',
  '7f40404040',
  '7f0204027f',
  '7f0408107f',
  '3e4141413e',
  '7f09090906',
  '3e4151215e',
  '7f09192946',
  '4649494931',
  '01017f0101',
  '3f4040403f',
  '1f2040201f',
  '7f2018207f',
  '6314081463',
  '0304780403',
  '6151494543',
  '00007f4141',
  '0204081020',
  '41417f0000',
  '0402010204',
  '4040404040',
  '0001020400',
  '2054545478',
  '7f48444438',
  '3844444420',
  '384444487f',
  '3854545418',
  '087e090102',
  '081454543c',
  '7f08040478',
  '00447d4000',
  '2040443d00',
  '007f102844',
  '00417f4000',
  '7c04180478',
  '7c08040478',
  '3844444438',
  '7c14141408',
  '081414187c',
  '7c08040408',
  '4854545420',
  '043f444020',
  '3c4040207c',
  '1c2040201c',
  '3c4030403c',
  '4428102844',
  '0c5050503c',
  '4464544c44',
  '0008364100',
  '00007f0000',
  '0041360800',
  '1008081008',
];

const glyphs = new Map<number, number[]>();
ASCII.forEach((hex, i) => {
  const cols: number[] = [];
  for (let c = 0; c < 5; c++) cols.push(parseInt(hex.substr(c * 2, 2), 16));
  glyphs.set(0x20 + i, cols);
});

/** Accent marks on the top row (bit 0), one bit a column. */
const MARKS: Record<string, number[]> = {
  acute: [0, 0, 1, 1, 0],
  grave: [0, 1, 1, 0, 0],
  circ: [0, 1, 0, 1, 0],
  diaer: [1, 0, 0, 0, 1],
};

function accented(code: number, base: string, mark: keyof typeof MARKS | 'cedilla'): void {
  const b = glyphs.get(base.charCodeAt(0))!;
  const upper = base >= 'A' && base <= 'Z';
  const cols = b.map((c, i) => {
    if (mark === 'cedilla') return c | ([0, 0, 1, 1, 0][i] << 7);
    // Capitals move down one row to make room; small letters have it free already.
    return (upper ? (c << 1) & 0xff : c) | MARKS[mark][i];
  });
  glyphs.set(code, cols);
}

const LATIN1: [string, string, keyof typeof MARKS | 'cedilla'][] = [
  ['À', 'A', 'grave'],
  ['Â', 'A', 'circ'],
  ['Ç', 'C', 'cedilla'],
  ['È', 'E', 'grave'],
  ['É', 'E', 'acute'],
  ['Ê', 'E', 'circ'],
  ['Ë', 'E', 'diaer'],
  ['Î', 'I', 'circ'],
  ['Ï', 'I', 'diaer'],
  ['Ô', 'O', 'circ'],
  ['Ù', 'U', 'grave'],
  ['Û', 'U', 'circ'],
  ['Ü', 'U', 'diaer'],
  ['à', 'a', 'grave'],
  ['â', 'a', 'circ'],
  ['ç', 'c', 'cedilla'],
  ['è', 'e', 'grave'],
  ['é', 'e', 'acute'],
  ['ê', 'e', 'circ'],
  ['ë', 'e', 'diaer'],
  ['î', 'i', 'circ'],
  ['ï', 'i', 'diaer'],
  ['ô', 'o', 'circ'],
  ['ù', 'u', 'grave'],
  ['û', 'u', 'circ'],
  ['ü', 'u', 'diaer'],
];
for (const [ch, base, mark] of LATIN1) accented(ch.charCodeAt(0), base, mark);
glyphs.set(0x20ac, [0x14, 0x3e, 0x55, 0x55, 0x41]); // €
glyphs.set(0xb0, [0x00, 0x06, 0x09, 0x09, 0x06]); // °
const BOX = [0x7f, 0x41, 0x41, 0x41, 0x7f];

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 8;

/** Five column bytes (bit 0 = top row) for a character; an empty box for one the font lacks. */
export function glyph(ch: string): number[] {
  return glyphs.get(ch.charCodeAt(0)) ?? BOX;
}

export function hasGlyph(ch: string): boolean {
  return glyphs.has(ch.charCodeAt(0));
}
