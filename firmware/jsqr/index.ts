import {binarize} from "./binarizer";
import {BitMatrix} from "./BitMatrix";
import {Chunks} from "./decoder/decodeData";
import {decode} from "./decoder/decoder";
import { Version } from "./decoder/version";
import {extract} from "./extractor";
import {charge, locate, MODULE_STEPS, Point, Work} from "./locator";

export interface QRCode {
  binaryData: number[];
  data: string;
  chunks: Chunks;
  version: number;
  location: {
    topRightCorner: Point;
    topLeftCorner: Point;
    bottomRightCorner: Point;
    bottomLeftCorner: Point;

    topRightFinderPattern: Point;
    topLeftFinderPattern: Point;
    bottomLeftFinderPattern: Point;

    bottomRightAlignmentPattern?: Point;
  };
}

function scan(matrix: BitMatrix, tryHarder = false, work?: Work): QRCode | null {
  const locations = locate(matrix, tryHarder, work);
  if (!locations) {
    return null;
  }

  for (const location of locations) {
    // saphir: sampling and decoding a location, by its modules (locator's Work): a wrong location can
    // be far larger than a code (277 modules a side from a noisy frame's finder patterns).
    if (!charge(work, location.dimension * location.dimension * MODULE_STEPS)) {
      return null;
    }
    const extracted = extract(matrix, location);
    const decoded = decode(extracted.matrix);
    if (decoded) {
      return {
        binaryData: decoded.bytes,
        data: decoded.text,
        chunks: decoded.chunks,
        version: decoded.version,
        location: {
          topRightCorner: extracted.mappingFunction(location.dimension, 0),
          topLeftCorner: extracted.mappingFunction(0, 0),
          bottomRightCorner: extracted.mappingFunction(location.dimension, location.dimension),
          bottomLeftCorner: extracted.mappingFunction(0, location.dimension),

          topRightFinderPattern: location.topRight,
          topLeftFinderPattern: location.topLeft,
          bottomLeftFinderPattern: location.bottomLeft,

          bottomRightAlignmentPattern: location.alignmentPattern,
        },
      };
    }
  }
  return null;
}

export interface Options {
  inversionAttempts?: "dontInvert" | "onlyInvert" | "attemptBoth" | "invertFirst";
  // saphir: more locations when jsQR's own do not decode (locator/index.ts), for still images.
  tryHarder?: boolean;
  // saphir: a bound on the run's work (locator's Work; the device's camera stream), none by default.
  work?: Work;
}

const defaultOptions: Options = {
  inversionAttempts: "attemptBoth",
};

function jsQR(data: Uint8ClampedArray, width: number, height: number, providedOptions: Options = {}): QRCode | null {

  const options = defaultOptions;
  Object.keys(options || {}).forEach(opt => { // Sad implementation of Object.assign since we target es5 not es6
    (options as any)[opt] = (providedOptions as any)[opt] || (options as any)[opt];
  });

  const shouldInvert = options.inversionAttempts === "attemptBoth" || options.inversionAttempts === "invertFirst";
  const tryInvertedFirst = options.inversionAttempts === "onlyInvert" || options.inversionAttempts === "invertFirst";
  const {binarized, inverted} = binarize(data, width, height, shouldInvert);
  // saphir: read from the caller's options (jsQR's own copy keeps only the keys of its defaults).
  const tryHarder = providedOptions.tryHarder === true;
  const work = providedOptions.work;
  let result = scan(tryInvertedFirst ? inverted : binarized, tryHarder, work);
  if (!result && (options.inversionAttempts === "attemptBoth" || options.inversionAttempts === "invertFirst")) {
    result = scan(tryInvertedFirst ? binarized : inverted, tryHarder, work);
  }
  return result;
}

// saphir: a grey image (one byte a pixel) read as jsQR reads the RGBA image with r = g = b, without the
// RGBA copy and its conversion; no inversion. Reached as `jsQR.grey` (the npm jsqr has none).
function jsQRGrey(grey: Uint8Array, width: number, height: number, tryHarder = false, work?: Work): QRCode | null {
  return scan(binarize(grey, width, height, false, true).binarized, tryHarder, work);
}

(jsQR as any).grey = jsQRGrey;
// saphir: the host's text for Kanji-mode segments (decoder/decodeData: none on the device).
export { setCharsetDecoder } from "./decoder/decodeData";
export type { Work } from "./locator";
(jsQR as any).default = jsQR;
export default jsQR;
