// The jsQR that `saphir decode` runs: the firmware's (firmware/jsqr/, vendored), so that the host reads
// an image as the device does, plus what the device leaves out for its size: the text of Kanji-mode
// (Shift_JIS) and Hanzi-mode (GB 2312) segments, from Node's TextDecoder (ICU).
// Loaded by path (tools/paths.ts), as the tests load it: the vendored source keeps jsQR's own compiler
// settings (firmware/jsqr/tsconfig.json), which the strict type-check of src/ would not follow.
import { pathToFileURL } from 'node:url';
import { JSQR_SOURCE } from '../tools/paths.ts';
import type { JsQR } from '../src/input/camera.ts';

type CharsetDecoder = (charset: 'shift_jis' | 'gb2312', bytes: number[]) => string | null;

/**
 * Text of a Kanji-mode (Shift_JIS) or Hanzi-mode (GB 2312, read as its superset GB 18030) segment; null
 * (jsQR then gives U+FFFD a character) when this Node has no such decoder (built without full ICU).
 */
export function charsetText(charset: 'shift_jis' | 'gb2312', bytes: number[]): string | null {
  try {
    return new TextDecoder(charset === 'gb2312' ? 'gb18030' : charset).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

let loaded: Promise<JsQR> | null = null;

/** A TypeScript module, from the prebuilt CLI too (which runs without tsx): tsx is registered when needed. */
async function importTs(url: string): Promise<never> {
  try {
    return (await import(url)) as never;
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw e;
    const { register } = await import('tsx/esm/api');
    register();
    // Node keeps the failed load under this URL: ask again under another.
    return (await import(`${url}?tsx`)) as never;
  }
}

/** The firmware's jsQR with the host's charset decoder installed (loaded once). */
export function hostJsQR(): Promise<JsQR> {
  loaded ??= importTs(pathToFileURL(JSQR_SOURCE).href).then(
    (m: { default: JsQR; setCharsetDecoder: (d: CharsetDecoder) => void }) => {
      m.setCharsetDecoder(charsetText);
      return m.default;
    },
  );
  return loaded;
}
