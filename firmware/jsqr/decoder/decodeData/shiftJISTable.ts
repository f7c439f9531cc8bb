// saphir: empty. SPH1 codes are alphanumeric: a Kanji-mode code decodes to garbage, which SPH1 refuses,
// and the ~7 000-entry table would cost the bundle's size budget for nothing.
export const shiftJISTable: {[key: number]: number} = {};
