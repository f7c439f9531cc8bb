import {BitMatrix} from "../BitMatrix";

const REGION_SIZE = 8;
const MIN_DYNAMIC_RANGE = 24;

function numBetween(value: number, min: number, max: number): number {
  return value < min ? min : value > max ? max : value;
}

// Like BitMatrix but accepts arbitry Uint8 values
class Matrix {
  public data: Uint8ClampedArray;
  private width: number;
  constructor(width: number, height: number) {
    this.width = width;
    this.data = new Uint8ClampedArray(width * height);
  }
  public get(x: number, y: number) {
    return this.data[y * this.width + x];
  }
  public set(x: number, y: number, value: number) {
    this.data[y * this.width + x] = value;
  }
}

// saphir: plain typed-array loops instead of a get()/set() call per pixel (QuickJS has no JIT). Same
// arithmetic, same index expressions (including the reads and writes past the row end when the width is
// not a multiple of 8) and the same loop order.
// saphir: `grey` (one byte a pixel, exactly width × height) is used as the greyscale image as is: what
// RGBA with r = g = b = v converts to (the three weights sum to 1, the clamped store rounds back to v).
export function binarize(data: Uint8ClampedArray | Uint8Array, width: number, height: number, returnInverted: boolean,
  grey = false) {
  if (data.length !== width * height * (grey ? 1 : 4)) {
    throw new Error("Malformed data passed to binarizer.");
  }
  let gp: Uint8ClampedArray | Uint8Array;
  if (grey) {
    gp = data;
  } else {
    // Convert image to greyscale
    const greyscalePixels = new Matrix(width, height);
    gp = greyscalePixels.data;
    for (let i = 0, n = width * height; i < n; i++) {
      gp[i] = 0.2126 * data[4 * i] + 0.7152 * data[4 * i + 1] + 0.0722 * data[4 * i + 2];
    }
  }
  const horizontalRegionCount = Math.ceil(width / REGION_SIZE);
  const verticalRegionCount = Math.ceil(height / REGION_SIZE);

  const blackPoints = new Matrix(horizontalRegionCount, verticalRegionCount);
  const bp = blackPoints.data;
  for (let verticalRegion = 0; verticalRegion < verticalRegionCount; verticalRegion++) {
    for (let hortizontalRegion = 0; hortizontalRegion < horizontalRegionCount; hortizontalRegion++) {
      let sum = 0;
      let min = Infinity;
      let max = 0;
      for (let y = 0; y < REGION_SIZE; y++) {
        const rowIndex = (verticalRegion * REGION_SIZE + y) * width + hortizontalRegion * REGION_SIZE;
        if (rowIndex + REGION_SIZE <= gp.length) {
          // saphir: inside the image no NaN can occur: plain compares.
          for (let i = rowIndex, e = rowIndex + REGION_SIZE; i < e; i++) {
            const v = gp[i];
            sum += v;
            if (v < min) min = v;
            if (v > max) max = v;
          }
          continue;
        }
        for (let x = 0; x < REGION_SIZE; x++) {
          const pixelLumosity = +gp[rowIndex + x]; // undefined past the end: NaN, as Math.min sees it
          sum += pixelLumosity;
          // Math.min/Math.max without the calls; a NaN (a read past the image) sticks as there.
          if (pixelLumosity < min || pixelLumosity !== pixelLumosity) min = pixelLumosity;
          if (pixelLumosity > max || pixelLumosity !== pixelLumosity) max = pixelLumosity;
        }
      }

      let average = sum / (REGION_SIZE ** 2);
      if (max - min <= MIN_DYNAMIC_RANGE) {
        // If variation within the block is low, assume this is a block with only light or only
        // dark pixels. In that case we do not want to use the average, as it would divide this
        // low contrast area into black and white pixels, essentially creating data out of noise.
        //
        // Default the blackpoint for these blocks to be half the min - effectively white them out
        average = min / 2;

        if (verticalRegion > 0 && hortizontalRegion > 0) {
          // Correct the "white background" assumption for blocks that have neighbors by comparing
          // the pixels in this block to the previously calculated black points. This is based on
          // the fact that dark barcode symbology is always surrounded by some amount of light
          // background for which reasonable black point estimates were made. The bp estimated at
          // the boundaries is used for the interior.

          // The (min < bp) is arbitrary but works better than other heuristics that were tried.
          const averageNeighborBlackPoint = (
            bp[(verticalRegion - 1) * horizontalRegionCount + hortizontalRegion] +
            (2 * bp[verticalRegion * horizontalRegionCount + hortizontalRegion - 1]) +
            bp[(verticalRegion - 1) * horizontalRegionCount + hortizontalRegion - 1]
          ) / 4;
          if (min < averageNeighborBlackPoint) {
            average = averageNeighborBlackPoint;
          }
        }
      }
      bp[verticalRegion * horizontalRegionCount + hortizontalRegion] = average;
    }
  }

  const binarized = BitMatrix.createEmpty(width, height);
  const bd = binarized.data;
  let inverted: BitMatrix = null;
  let id: Uint8ClampedArray = null;
  if (returnInverted) {
    inverted = BitMatrix.createEmpty(width, height);
    id = inverted.data;
  }
  for (let verticalRegion = 0; verticalRegion < verticalRegionCount; verticalRegion++) {
    for (let hortizontalRegion = 0; hortizontalRegion < horizontalRegionCount; hortizontalRegion++) {
      const left = numBetween(hortizontalRegion, 2, horizontalRegionCount - 3);
      const top = numBetween(verticalRegion, 2, verticalRegionCount - 3);
      let sum = 0;
      for (let xRegion = -2; xRegion <= 2; xRegion++) {
        for (let yRegion = -2; yRegion <= 2; yRegion++) {
          sum += bp[(top + yRegion) * horizontalRegionCount + left + xRegion];
        }
      }
      const threshold = sum / 25;
      // saphir: row by row with the index hoisted (jsQR goes column by column); a block's 64 indices are
      // distinct, so the order inside a block changes nothing, and blocks keep their order.
      for (let yRegion = 0; yRegion < REGION_SIZE; yRegion++) {
        const start = (verticalRegion * REGION_SIZE + yRegion) * width + hortizontalRegion * REGION_SIZE;
        const end = start + REGION_SIZE;
        if (returnInverted) {
          for (let i = start; i < end; i++) {
            const black = gp[i] <= threshold;
            bd[i] = black ? 1 : 0;
            id[i] = black ? 0 : 1;
          }
        } else {
          for (let i = start; i < end; i++) bd[i] = gp[i] <= threshold ? 1 : 0;
        }
      }
    }
  }
  if (returnInverted) {
    return { binarized, inverted };
  }
  return { binarized };
}
