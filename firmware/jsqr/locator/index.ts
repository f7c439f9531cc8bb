import { BitMatrix } from "../BitMatrix";

const MAX_FINDERPATTERNS_TO_SEARCH = 4;

export interface Point {
  x: number;
  y: number;
}

// saphir: a bound on the work of a run (the device's camera stream; issue #35). jsQR's work grows with
// the pattern-like runs it finds: the row scan matches each against every open candidate, then scores
// each finder candidate, sorts the alignment candidates, samples a location's modules. A noisy VGA frame
// has ~1 500 finder and ~19 000 alignment candidates, ~10 million matches: 1–2 s in QuickJS, ~0.1 s for
// a clean frame. Counted in steps (no clock: the core has none and the explorer replays runs exactly),
// each weighted as its QuickJS time (~0.1 µs a step): a match 1, a finder candidate FINDER_STEPS, an
// alignment candidate ALIGNMENT_STEPS, a module MODULE_STEPS. Work the frame's size bounds (binarizing,
// the pixels of the row scan) is not counted. Steps are charged before they are taken; a run whose next
// steps would pass `limit` stops there, reads nothing and sets `used` to limit + 1 (so used ≤ limit + 1).
// `used` carries over from run to run (the caller's budget for a whole frame).
export interface Work {
  used: number;
  limit: number;
}
export const FINDER_STEPS = 500;
export const ALIGNMENT_STEPS = 64;
export const MODULE_STEPS = 16;

/** Charges `steps` to `work`; false (the run stops, `used` = limit + 1) when they would pass its limit. */
export function charge(work: Work | undefined, steps: number): boolean {
  if (!work) {
    return true;
  }
  if (work.used + steps > work.limit) {
    work.used = work.limit + 1;
    return false;
  }
  work.used += steps;
  return true;
}

export interface QRLocation {
  topRight: Point;
  bottomLeft: Point;
  topLeft: Point;
  alignmentPattern: Point;
  dimension: number;
}

const distance = (a: Point, b: Point) => Math.sqrt((b.x - a.x) ** 2 + (b.y - a.y) ** 2);

function sum(values: number[]) {
  return values.reduce((a, b) => a + b);
}

// Takes three finder patterns and organizes them into topLeft, topRight, etc
function reorderFinderPatterns(pattern1: Point, pattern2: Point, pattern3: Point) {
  // Find distances between pattern centers
  const oneTwoDistance = distance(pattern1, pattern2);
  const twoThreeDistance = distance(pattern2, pattern3);
  const oneThreeDistance = distance(pattern1, pattern3);

  let bottomLeft: Point;
  let topLeft: Point;
  let topRight: Point;

  // Assume one closest to other two is B; A and C will just be guesses at first
  if (twoThreeDistance >= oneTwoDistance && twoThreeDistance >= oneThreeDistance) {
    [bottomLeft, topLeft, topRight] = [pattern2, pattern1, pattern3];
  } else if (oneThreeDistance >= twoThreeDistance && oneThreeDistance >= oneTwoDistance) {
    [bottomLeft, topLeft, topRight] = [pattern1, pattern2, pattern3];
  } else {
    [bottomLeft, topLeft, topRight] = [pattern1, pattern3, pattern2];
  }

  // Use cross product to figure out whether bottomLeft (A) and topRight (C) are correct or flipped in relation to topLeft (B)
  // This asks whether BC x BA has a positive z component, which is the arrangement we want. If it's negative, then
  // we've got it flipped around and should swap topRight and bottomLeft.
  if (((topRight.x - topLeft.x) * (bottomLeft.y - topLeft.y)) - ((topRight.y - topLeft.y) * (bottomLeft.x - topLeft.x)) < 0) {
    [bottomLeft, topRight] = [topRight, bottomLeft];
  }

  return { bottomLeft, topLeft, topRight };
}

// Computes the dimension (number of modules on a side) of the QR Code based on the position of the finder patterns
function computeDimension(topLeft: Point, topRight: Point, bottomLeft: Point, matrix: BitMatrix) {
  const moduleSize = (
    sum(countBlackWhiteRun(topLeft, bottomLeft, matrix, 5)) / 7 + // Divide by 7 since the ratio is 1:1:3:1:1
    sum(countBlackWhiteRun(topLeft, topRight, matrix, 5)) / 7 +
    sum(countBlackWhiteRun(bottomLeft, topLeft, matrix, 5)) / 7 +
    sum(countBlackWhiteRun(topRight, topLeft, matrix, 5)) / 7
  ) / 4;

  if (moduleSize < 1) {
    throw new Error("Invalid module size");
  }

  const topDimension = Math.round(distance(topLeft, topRight) / moduleSize);
  const sideDimension = Math.round(distance(topLeft, bottomLeft) / moduleSize);
  let dimension = Math.floor((topDimension + sideDimension) / 2) + 7;
  switch (dimension % 4) {
    case 0:
      dimension++;
      break;
    case 2:
      dimension--;
      break;
  }
  return { dimension, moduleSize };
}

// saphir: the run counting and scoring below walk the same line (Bresenham, same early stops) with the
// same float arithmetic in the same order as jsQR's, without an object per colour switch, shift/concat or
// reduce/forEach closures (QuickJS has no JIT). The switch points go into two reused arrays.
const switchXs = [0, 0, 0, 0, 0, 0, 0, 0];
const switchYs = [0, 0, 0, 0, 0, 0, 0, 0];

// Takes an origin point and an end point and counts the sizes of the black white run from the origin towards the end point.
// Returns an array of elements, representing the pixel size of the black white run.
// Uses a variant of http://en.wikipedia.org/wiki/Bresenham's_line_algorithm
function countBlackWhiteRunTowardsPoint(origin: Point, end: Point, matrix: BitMatrix, length: number) {
  const sx = length + 1 > switchXs.length ? new Array<number>(length + 1) : switchXs;
  const sy = length + 1 > switchYs.length ? new Array<number>(length + 1) : switchYs;
  sx[0] = Math.floor(origin.x);
  sy[0] = Math.floor(origin.y);
  let count = 1;
  const steep = Math.abs(end.y - origin.y) > Math.abs(end.x - origin.x);

  let fromX: number;
  let fromY: number;
  let toX: number;
  let toY: number;
  if (steep) {
    fromX = Math.floor(origin.y);
    fromY = Math.floor(origin.x);
    toX = Math.floor(end.y);
    toY = Math.floor(end.x);
  } else {
    fromX = Math.floor(origin.x);
    fromY = Math.floor(origin.y);
    toX = Math.floor(end.x);
    toY = Math.floor(end.y);
  }

  const dx = Math.abs(toX - fromX);
  const dy = Math.abs(toY - fromY);
  let error = Math.floor(-dx / 2);
  const xStep = fromX < toX ? 1 : -1;
  const yStep = fromY < toY ? 1 : -1;

  let currentPixel = true;
  const mw = matrix.width;
  const mh = matrix.height;
  const md = matrix.data;
  // Loop up until x == toX, but not beyond
  for (let x = fromX, y = fromY; x !== toX + xStep; x += xStep) {
    // Does current pixel mean we have moved white to black or vice versa?
    // Scanning black in state 0,2 and white in state 1, so if we find the wrong
    // color, advance to next state or end if we are in state 2 already
    const realX = steep ? y : x;
    const realY = steep ? x : y;
    const pixel = realX < 0 || realX >= mw || realY < 0 || realY >= mh ? false : !!md[realY * mw + realX];
    if (pixel !== currentPixel) {
      currentPixel = !currentPixel;
      sx[count] = realX;
      sy[count] = realY;
      count++;
      if (count === length + 1) {
        break;
      }
    }
    error += dy;
    if (error > 0) {
      if (y === toY) {
        break;
      }
      y += yStep;
      error -= dx;
    }
  }
  const distances: number[] = [];
  for (let i = 0; i < length; i++) {
    if (i + 1 < count) {
      distances.push(Math.sqrt((sx[i + 1] - sx[i]) ** 2 + (sy[i + 1] - sy[i]) ** 2));
    } else {
      distances.push(0);
    }
  }
  return distances;
}

// Takes an origin point and an end point and counts the sizes of the black white run in the origin point
// along the line that intersects with the end point. Returns an array of elements, representing the pixel sizes
// of the black white run. Takes a length which represents the number of switches from black to white to look for.
function countBlackWhiteRun(origin: Point, end: Point, matrix: BitMatrix, length: number) {
  const rise = end.y - origin.y;
  const run = end.x - origin.x;
  const half = Math.ceil(length / 2);

  const towardsEnd = countBlackWhiteRunTowardsPoint(origin, end, matrix, half);
  const awayFromEnd = countBlackWhiteRunTowardsPoint(origin, {x: origin.x - run, y: origin.y - rise}, matrix, half);

  // awayFromEnd minus its first, the middle run, towardsEnd minus its first.
  const result: number[] = [];
  for (let i = 1; i < awayFromEnd.length; i++) {
    result.push(awayFromEnd[i]);
  }
  result.push(towardsEnd[0] + awayFromEnd[0] - 1); // Substract one so we don't double count a pixel
  for (let i = 1; i < towardsEnd.length; i++) {
    result.push(towardsEnd[i]);
  }
  return result;
}

// Takes in a black white run and an array of expected ratios. Returns the average size of the run as well as the "error" -
// that is the amount the run diverges from the expected ratio
function scoreBlackWhiteRun(sequence: number[], ratios: number[]) {
  // Summed left to right from the first element, as reduce() does.
  let sequenceSum = sequence[0];
  for (let i = 1; i < sequence.length; i++) {
    sequenceSum = sequenceSum + sequence[i];
  }
  let ratioSum = ratios[0];
  for (let i = 1; i < ratios.length; i++) {
    ratioSum = ratioSum + ratios[i];
  }
  const averageSize = sequenceSum / ratioSum;
  let error = 0;
  for (let i = 0; i < ratios.length; i++) {
    error += (sequence[i] - ratios[i] * averageSize) ** 2;
  }

  return { averageSize, error };
}

// Takes an X,Y point and an array of sizes and scores the point against those ratios.
// For example for a finder pattern takes the ratio list of 1:1:3:1:1 and checks horizontal, vertical and diagonal ratios
// against that.
function scorePattern(point: Point, ratios: number[], matrix: BitMatrix) {
  try {
    const horizontalRun = countBlackWhiteRun(point, {x: -1, y: point.y}, matrix, ratios.length);
    const verticalRun = countBlackWhiteRun(point, {x: point.x, y: -1}, matrix, ratios.length);

    const topLeftPoint = {
      x: Math.max(0, point.x - point.y) - 1,
      y: Math.max(0, point.y - point.x) - 1,
    };
    const topLeftBottomRightRun = countBlackWhiteRun(point, topLeftPoint, matrix, ratios.length);

    const bottomLeftPoint = {
      x: Math.min(matrix.width, point.x + point.y) + 1,
      y: Math.min(matrix.height, point.y + point.x) + 1,
    };
    const bottomLeftTopRightRun = countBlackWhiteRun(point, bottomLeftPoint, matrix, ratios.length);

    const horzError = scoreBlackWhiteRun(horizontalRun, ratios);
    const vertError = scoreBlackWhiteRun(verticalRun, ratios);
    const diagDownError = scoreBlackWhiteRun(topLeftBottomRightRun, ratios);
    const diagUpError = scoreBlackWhiteRun(bottomLeftTopRightRun, ratios);

    const ratioError = Math.sqrt(horzError.error * horzError.error +
      vertError.error * vertError.error +
      diagDownError.error * diagDownError.error +
      diagUpError.error * diagUpError.error);

    const avgSize = (horzError.averageSize + vertError.averageSize + diagDownError.averageSize + diagUpError.averageSize) / 4;

    const sizeError = ((horzError.averageSize - avgSize) ** 2 +
      (vertError.averageSize - avgSize) ** 2 +
      (diagDownError.averageSize - avgSize) ** 2 +
      (diagUpError.averageSize - avgSize) ** 2) / avgSize;
    return ratioError + sizeError;
  } catch {
    return Infinity;
  }
}

function recenterLocation(matrix: BitMatrix, p: Point): Point {
  let leftX = Math.round(p.x);
  while (matrix.get(leftX, Math.round(p.y))) {
    leftX--;
  }
  let rightX = Math.round(p.x);
  while (matrix.get(rightX, Math.round(p.y))) {
    rightX++;
  }
  const x = (leftX + rightX) / 2;

  let topY = Math.round(p.y);
  while (matrix.get(Math.round(x), topY)) {
    topY--;
  }
  let bottomY = Math.round(p.y);
  while (matrix.get(Math.round(x), bottomY)) {
    bottomY++;
  }
  const y = (topY + bottomY) / 2;

  return { x, y };
}

interface Quad {
  top: {
    startX: number;
    endX: number;
    y: number;
  };
  bottom: {
    startX: number;
    endX: number;
    y: number;
  };
  sizeScore?: number; // saphir: see findAlignmentPattern
}

// saphir: the first quad whose bottom line the new run [startX, endX] continues (jsQR's filter()[0]).
// jsQR's three cases (start inside; end at or past the start and start at or before the end; the line
// inside with a size ratio) all reduce to its second one, the two lines overlapping, since
// startX < endX: that one compare pair is what runs here.
function firstMatchingQuad(quads: Quad[], startX: number, endX: number): Quad | null {
  for (let i = 0; i < quads.length; i++) {
    const b = quads[i].bottom;
    if (endX >= b.startX && startX <= b.endX) {
      return quads[i];
    }
  }
  return null;
}

// saphir: defined false by the firmware build's camera module only (undefined elsewhere: still mode kept).
declare const __JSQR_TRY_HARDER__: boolean | undefined;

export function locate(matrix: BitMatrix, tryHarder = false, work?: Work): QRLocation[] {
  // saphir: the row scan's steps (see Work), counted down here and charged once it is over.
  const left = work ? work.limit - work.used : Infinity;
  let steps = 0;
  const finderPatternQuads: Quad[] = [];
  let activeFinderPatternQuads: Quad[] = [];
  const alignmentPatternQuads: Quad[] = [];
  let activeAlignmentPatternQuads: Quad[] = [];

  // saphir: the row scan without a get() call per pixel and without new arrays, reduce() and filter()
  // closures at each colour change (QuickJS has no JIT). Same runs, same quads, same order.
  // BitMatrix.get(x, y) is false outside the matrix and !!data[y * width + x] inside.
  const mw = matrix.width;
  const mh = matrix.height;
  const md = matrix.data;
  for (let y = 0; y <= mh; y++) {
    // saphir: a tight loop over each run, then one step per colour change (x = -1 and x = mw, and the
    // row y = mh, are white as get() sees them).
    let length = 1; // x = -1
    let lastBit = false;
    // The last 5 run lengths, oldest first (jsQR's `scans`).
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    const rowIndex = y * mw;
    const rowEnd = y < mh ? mw : 0;

    for (let x = 0; x <= mw; x++) {
      const from = x;
      let p = rowIndex + x;
      if (lastBit) {
        while (x < rowEnd && md[p] !== 0) { x++; p++; }
      } else {
        while (x < rowEnd && md[p] === 0) { x++; p++; }
      }
      length += x - from;
      if (x >= rowEnd && !lastBit) {
        break; // white to the end of the row: no more colour changes
      }
      // Pixel x has the other colour.
      const v: boolean = !lastBit;
      s0 = s1; s1 = s2; s2 = s3; s3 = s4; s4 = length;
      length = 1;
      lastBit = v;

      // Do the last 5 color changes ~ match the expected ratio for a finder pattern? 1:1:3:1:1 of b:w:b:w:b
      // saphir: the pixel's colour first (it rules out one of the two patterns), no Math.abs calls.
      const af = (s0 + s1 + s2 + s3 + s4) / 7;
      const validFinderPattern =
        !v && // And make sure the current pixel is white since finder patterns are bordered in white
        s0 - af < af && af - s0 < af &&
        s1 - af < af && af - s1 < af &&
        s2 - 3 * af < 3 * af && 3 * af - s2 < 3 * af &&
        s3 - af < af && af - s3 < af &&
        s4 - af < af && af - s4 < af;

      // Do the last 3 color changes ~ match the expected ratio for an alignment pattern? 1:1:1 of w:b:w
      const aa = (s2 + s3 + s4) / 3;
      const validAlignmentPattern =
        v && // Is the current pixel black since alignment patterns are bordered in black
        s2 - aa < aa && aa - s2 < aa &&
        s3 - aa < aa && aa - s3 < aa &&
        s4 - aa < aa && aa - s4 < aa;

      if (validFinderPattern) {
        // Compute the start and end x values of the large center black square
        const endX = x - s3 - s4;
        const startX = endX - s2;
        const line = { startX, endX, y };
        // Is there a quad directly above the current spot? If so, extend the first one with the new line.
        // Otherwise, create a new quad with that line as the starting point.
        steps += 1 + activeFinderPatternQuads.length;
        if (steps > left) {
          charge(work, steps); // refused: marks the limit reached
          return null;
        }
        const match = firstMatchingQuad(activeFinderPatternQuads, startX, endX);
        if (match) {
          match.bottom = line;
        } else {
          activeFinderPatternQuads.push({ top: line, bottom: line });
        }
      }
      if (validAlignmentPattern) {
        // Compute the start and end x values of the center black square
        const endX = x - s4;
        const startX = endX - s3;
        const line = { startX, y, endX };
        steps += 1 + activeAlignmentPatternQuads.length;
        if (steps > left) {
          charge(work, steps); // refused: marks the limit reached
          return null;
        }
        const match = firstMatchingQuad(activeAlignmentPatternQuads, startX, endX);
        if (match) {
          match.bottom = line;
        } else {
          activeAlignmentPatternQuads.push({ top: line, bottom: line });
        }
      }
    }

    const stillFinder: Quad[] = [];
    for (let i = 0; i < activeFinderPatternQuads.length; i++) {
      const q = activeFinderPatternQuads[i];
      if (q.bottom.y === y) {
        stillFinder.push(q);
      } else if (q.bottom.y - q.top.y >= 2) {
        finderPatternQuads.push(q);
      }
    }
    activeFinderPatternQuads = stillFinder;

    const stillAlignment: Quad[] = [];
    for (let i = 0; i < activeAlignmentPatternQuads.length; i++) {
      const q = activeAlignmentPatternQuads[i];
      if (q.bottom.y === y) {
        stillAlignment.push(q);
      } else {
        alignmentPatternQuads.push(q);
      }
    }
    activeAlignmentPatternQuads = stillAlignment;
  }

  finderPatternQuads.push(...activeFinderPatternQuads.filter(q => q.bottom.y - q.top.y >= 2));
  alignmentPatternQuads.push(...activeAlignmentPatternQuads);

  // saphir: what follows grows with the candidates (see Work).
  if (!charge(work, steps + finderPatternQuads.length * FINDER_STEPS + alignmentPatternQuads.length * ALIGNMENT_STEPS)) {
    return null;
  }

  const finderPatternGroups = finderPatternQuads
    .filter(q => q.bottom.y - q.top.y >= 2) // All quads must be at least 2px tall since the center square is larger than a block
    .map(q => { // Initial scoring of finder pattern quads by looking at their ratios, not taking into account position
      const x = (q.top.startX + q.top.endX + q.bottom.startX + q.bottom.endX) / 4;
      const y = (q.top.y + q.bottom.y + 1) / 2;
      if (!matrix.get(Math.round(x), Math.round(y))) {
        return;
      }

      const lengths = [q.top.endX - q.top.startX, q.bottom.endX - q.bottom.startX, q.bottom.y - q.top.y + 1];
      const size = sum(lengths) / lengths.length;
      const score = scorePattern({x: Math.round(x), y: Math.round(y)}, [1, 1, 3, 1, 1], matrix);
      return { score, x, y, size };
    })
    .filter(q => !!q) // Filter out any rejected quads from above
    .sort((a, b) => a.score - b.score)
    // Now take the top finder pattern options and try to find 2 other options with a similar size.
    .map((point, i, finderPatterns) => {
      if (i > MAX_FINDERPATTERNS_TO_SEARCH) {
        return null;
      }
      const otherPoints = finderPatterns
        .filter((p, ii) => i !== ii)
        .map(p => ({ x: p.x, y: p.y, score: p.score + ((p.size - point.size) ** 2) / point.size, size: p.size }))
        .sort((a, b) => a.score - b.score);
      if (otherPoints.length < 2) {
        return null;
      }
      const score = point.score + otherPoints[0].score + otherPoints[1].score;
      return {points: [point].concat(otherPoints.slice(0, 2)), score};
    })
    .filter(q => !!q) // Filter out any rejected finder patterns from above
    .sort((a, b) => a.score - b.score);

  if (finderPatternGroups.length === 0) {
    return null;
  }

  const { topRight, topLeft, bottomLeft } = reorderFinderPatterns(
    finderPatternGroups[0].points[0], finderPatternGroups[0].points[1], finderPatternGroups[0].points[2],
  );
  const alignment = findAlignmentPattern(matrix, alignmentPatternQuads, topRight, topLeft, bottomLeft);
  const result: QRLocation[] = [];
  if (alignment) {
    result.push({
      alignmentPattern: { x: alignment.alignmentPattern.x, y: alignment.alignmentPattern.y },
      bottomLeft: {x: bottomLeft.x, y: bottomLeft.y },
      dimension: alignment.dimension,
      topLeft: {x: topLeft.x, y: topLeft.y },
      topRight: {x: topRight.x, y: topRight.y },
    });
  }

  // We normally use the center of the quads as the location of the tracking points, which is optimal for most cases and will account
  // for a skew in the image. However, In some cases, a slight skew might not be real and instead be caused by image compression
  // errors and/or low resolution. For those cases, we'd be better off centering the point exactly in the middle of the black area. We
  // compute and return the location data for the naively centered points as it is little additional work and allows for multiple
  // attempts at decoding harder images.
  const midTopRight = recenterLocation(matrix, topRight);
  const midTopLeft = recenterLocation(matrix, topLeft);
  const midBottomLeft = recenterLocation(matrix, bottomLeft);
  const centeredAlignment = findAlignmentPattern(matrix, alignmentPatternQuads, midTopRight, midTopLeft, midBottomLeft);
  if (centeredAlignment) {
    result.push({
      alignmentPattern: { x: centeredAlignment.alignmentPattern.x, y: centeredAlignment.alignmentPattern.y },
      bottomLeft: { x: midBottomLeft.x, y: midBottomLeft. y },
      topLeft: { x: midTopLeft.x, y: midTopLeft. y },
      topRight: { x: midTopRight.x, y: midTopRight. y },
      dimension: centeredAlignment.dimension,
    });
  }

  // saphir: then the first finder patterns with the alignment pattern where they put it, tried last (a
  // torn or stained corner offers a wrong candidate, and jsQR takes the least bad one however far it is;
  // ZXing-C++ falls back to the estimate). Codes jsQR reads are read by the locations above, as before.
  if (alignment) {
    const expected = alignment.expectedAlignmentPattern;
    if (expected.x !== alignment.alignmentPattern.x || expected.y !== alignment.alignmentPattern.y) {
      result.push({
        alignmentPattern: { x: expected.x, y: expected.y },
        bottomLeft: {x: bottomLeft.x, y: bottomLeft.y },
        dimension: alignment.dimension,
        topLeft: {x: topLeft.x, y: topLeft.y },
        topRight: {x: topRight.x, y: topRight.y },
      });
    }
  }

  // saphir: trying harder (the host's still images, not the device's camera stream), two more kinds of
  // location after jsQR's, each only tried when those did not decode. The device's camera module is built
  // with __JSQR_TRY_HARDER__ false (tools/build.ts): its stream never asks, so the code is not carried.
  if (tryHarder && (typeof __JSQR_TRY_HARDER__ === "undefined" || __JSQR_TRY_HARDER__)) {
    // The other finder-pattern groups (jsQR tries only its best-scored one), each once and only if its
    // three points can be a code's corners. A stained or painted finder pattern can score worse than a
    // finder-like blob that then makes the best group (the corpus photo 'sidewalk').
    const tried = [groupKey(finderPatternGroups[0].points)];
    for (let i = 1; i < finderPatternGroups.length; i++) {
      const points = finderPatternGroups[i].points;
      const key = groupKey(points);
      if (tried.indexOf(key) >= 0) {
        continue;
      }
      tried.push(key);
      const corners = reorderFinderPatterns(points[0], points[1], points[2]);
      if (!plausibleCorners(corners.topLeft, corners.topRight, corners.bottomLeft, points)) {
        continue;
      }
      const other = findAlignmentPattern(matrix, alignmentPatternQuads, corners.topRight, corners.topLeft, corners.bottomLeft);
      if (other) {
        result.push({
          alignmentPattern: { x: other.alignmentPattern.x, y: other.alignmentPattern.y },
          bottomLeft: { x: corners.bottomLeft.x, y: corners.bottomLeft.y },
          dimension: other.dimension,
          topLeft: { x: corners.topLeft.x, y: corners.topLeft.y },
          topRight: { x: corners.topRight.x, y: corners.topRight.y },
        });
      }
    }
    // A version 1 code has no alignment pattern: its fourth point is where a parallelogram puts it, one
    // module or more off in a photo taken at an angle. The same location with that point moved by one
    // module in each of the 8 directions.
    const n = result.length;
    for (let i = 0; i < n; i++) {
      const l = result[i];
      if (l.dimension !== 21) {
        continue;
      }
      const module = (distance(l.topLeft, l.topRight) + distance(l.topLeft, l.bottomLeft)) / 2 / 14;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]]) {
        result.push({ ...l, alignmentPattern: { x: l.alignmentPattern.x + dx * module, y: l.alignmentPattern.y + dy * module } });
      }
    }
  }

  if (result.length === 0) {
    return null;
  }

  return result;
}

// saphir: the same three points in any order give the same key.
function groupKey(points: Point[]) {
  return points.map(p => p.x + "," + p.y).sort().join(" ");
}

// saphir: whether three finder patterns can be a code's corners: the two legs from the top-left one
// within a factor 1.5 of each other (perspective), at 90° ± 25°, the patterns' sizes within a factor 2.
function plausibleCorners(topLeft: Point, topRight: Point, bottomLeft: Point, points: Array<{ size: number }>) {
  const a = distance(topLeft, topRight);
  const b = distance(topLeft, bottomLeft);
  if (!(a > 0 && b > 0) || Math.max(a, b) > 1.5 * Math.min(a, b)) {
    return false;
  }
  const cos = ((topRight.x - topLeft.x) * (bottomLeft.x - topLeft.x) + (topRight.y - topLeft.y) * (bottomLeft.y - topLeft.y)) / (a * b);
  if (Math.abs(cos) > 0.42) {
    return false;
  }
  const sizes = points.map(p => p.size);
  return Math.max(...sizes) <= 2 * Math.min(...sizes);
}

function findAlignmentPattern(matrix: BitMatrix, alignmentPatternQuads: Quad[], topRight: Point, topLeft: Point, bottomLeft: Point) {
  // Now that we've found the three finder patterns we can determine the blockSize and the size of the QR code.
  // We'll use these to help find the alignment pattern but also later when we do the extraction.
  let dimension: number;
  let moduleSize: number;
  try {
    ({ dimension, moduleSize } = computeDimension(topLeft, topRight, bottomLeft, matrix));
  } catch (e) {
    return null;
  }

  // Now find the alignment pattern
  const bottomRightFinderPattern = { // Best guess at where a bottomRight finder pattern would be
    x: topRight.x - topLeft.x + bottomLeft.x,
    y: topRight.y - topLeft.y + bottomLeft.y,
  };
  const modulesBetweenFinderPatterns = ((distance(topLeft, bottomLeft) + distance(topLeft, topRight)) / 2 / moduleSize);
  const correctionToTopLeft = 1 - (3 / modulesBetweenFinderPatterns);
  const expectedAlignmentPattern = {
    x: topLeft.x + correctionToTopLeft * (bottomRightFinderPattern.x - topLeft.x),
    y: topLeft.y + correctionToTopLeft * (bottomRightFinderPattern.y - topLeft.y),
  };

  // If there are less than 15 modules between finder patterns it's a version 1 QR code and as such has no alignmemnt pattern
  // so we can only use our best guess.
  // saphir: jsQR scored every alignment candidate (scorePattern walks 8 lines) then took the lowest
  // score = sizeScore + distance to the expected place, the first in candidate order among equals. As
  // sizeScore >= 0, a candidate farther than the best score so far cannot win: candidates are taken by
  // distance and scored only while they can. Same winner; none scored for a version 1 code.
  if (!(modulesBetweenFinderPatterns >= 15)) {
    return { alignmentPattern: expectedAlignmentPattern, dimension, expectedAlignmentPattern };
  }
  const candidates: { x: number, y: number, d: number, i: number, q: Quad }[] = [];
  for (let i = 0; i < alignmentPatternQuads.length; i++) {
    const q = alignmentPatternQuads[i];
    const x = (q.top.startX + q.top.endX + q.bottom.startX + q.bottom.endX) / 4;
    const y = (q.top.y + q.bottom.y + 1) / 2;
    if (!matrix.get(Math.floor(x), Math.floor(y))) {
      continue;
    }
    candidates.push({ x, y, d: distance({x, y}, expectedAlignmentPattern), i, q });
  }
  candidates.sort((a, b) => a.d - b.d || a.i - b.i);
  let best: { x: number, y: number, score: number, i: number } | null = null;
  for (const c of candidates) {
    if (best && c.d > best.score) {
      break;
    }
    const q = c.q;
    // saphir: locate() calls this twice with the same quads; the score (a pure function of the matrix
    // and the quad) is kept on the quad for the second call.
    const sizeScore = q.sizeScore === undefined
      ? (q.sizeScore = scorePattern({x: Math.floor(c.x), y: Math.floor(c.y)}, [1, 1, 1], matrix))
      : q.sizeScore;
    const score = sizeScore + c.d;
    if (!best || score < best.score || (score === best.score && c.i < best.i)) {
      best = { x: c.x, y: c.y, score, i: c.i };
    }
  }

  const alignmentPattern = best ? { x: best.x, y: best.y, score: best.score } : expectedAlignmentPattern;

  return { alignmentPattern, dimension, expectedAlignmentPattern };
}
