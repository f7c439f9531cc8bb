// jsQR 1.4.0 (node_modules/jsqr/dist/jsQR.js) as the firmware bundles it: the same results, less work in
// an engine without a JIT (QuickJS). build.mjs applies `patchJsQR` when bundling; test/firmware/camera.test.ts
// checks that the patched text decodes exactly as the stock one (text and corners).
// Each patch replaces an exact piece of the dist text and fails the build if that text is not found once.

const PATCHES = [
  {
    what: 'Shift-JIS table (SPH1 codes are alphanumeric: a Kanji-mode code decodes to garbage, which SPH1 refuses)',
    apply(src) {
      const start = src.indexOf('exports.shiftJISTable = {');
      const end = start < 0 ? -1 : src.indexOf('};', start);
      return end < 0 ? null : src.slice(0, start) + 'exports.shiftJISTable = {};' + src.slice(end + 2);
    },
  },
  {
    // A new GF(256) per block is a field↔polynomial reference cycle that QuickJS's refcounting cannot free:
    // only its cycle collector does, once the heap has grown by half (~60 KB a camera frame piled up).
    what: 'one read-only Reed-Solomon field instead of one per block',
    apply: (src) =>
      replaceOnce(
        replaceOnce(src, 'function decode(bytes, twoS) {', 'var rsField;\nfunction decode(bytes, twoS) {'),
        'var field = new GenericGF_1.default(0x011D, 256, 0);',
        'var field = rsField || (rsField = new GenericGF_1.default(0x011D, 256, 0));',
      ),
  },
  {
    // Same arithmetic, same index expressions (including jsQR's reads and writes past the row end when
    // the width is not a multiple of 8) and loop order; no method call per pixel.
    what: 'binarizer: plain typed-array loops',
    apply(src) {
      const start = src.indexOf('function binarize(data, width, height, returnInverted) {');
      const end = src.indexOf('exports.binarize = binarize;');
      if (start < 0 || end < start || src.indexOf('exports.binarize = binarize;', end + 1) >= 0) return null;
      return src.slice(0, start) + BINARIZE + '\n' + src.slice(end);
    },
  },
  {
    // The row scan for finder and alignment patterns: a closure call and a get() per pixel, and at each
    // colour change new arrays, reduce() and filter() closures. Same runs, same quads, same order.
    what: 'locator row scan: plain loops',
    apply(src) {
      const start = src.indexOf('    var _loop_1 = function (y) {');
      const endMark = '    for (var y = 0; y <= matrix.height; y++) {\n        _loop_1(y);\n    }\n';
      const end = src.indexOf(endMark, start);
      if (start < 0 || end < 0) return null;
      return src.slice(0, start) + ROW_SCAN + src.slice(end + endMark.length);
    },
  },
  {
    // locate() calls findAlignmentPattern twice with the same quads; each call scored every
    // alignment-pattern candidate (hundreds in a code's data area) with scorePattern, a pure function of
    // the matrix and the quad. The score is kept on the quad for the second call.
    what: 'alignment candidates scored once',
    apply: (src) =>
      replaceOnce(
        src,
        '        var sizeScore = scorePattern({ x: Math.floor(x), y: Math.floor(y) }, [1, 1, 1], matrix);',
        '        var sizeScore = q.sizeScore === undefined ? (q.sizeScore = scorePattern({ x: Math.floor(x), y: Math.floor(y) }, [1, 1, 1], matrix)) : q.sizeScore;',
      ),
  },
  {
    // The black/white run counts behind every pattern score: an object per colour switch, shift/concat,
    // reduce/forEach closures. Same walk (Bresenham, same early stops), same float arithmetic, in order.
    what: 'run counting and scoring without per-switch objects and closures',
    apply(src) {
      const start = src.indexOf('function countBlackWhiteRunTowardsPoint(origin, end, matrix, length) {');
      const end = src.indexOf('// Takes an X,Y point and an array of sizes and scores the point against those ratios.', start);
      if (start < 0 || end < 0) return null;
      return src.slice(0, start) + RUNS + src.slice(end);
    },
  },
];

function replaceOnce(src, from, to) {
  if (src === null) return null;
  const i = src.indexOf(from);
  if (i < 0 || src.indexOf(from, i + 1) >= 0) return null;
  return src.slice(0, i) + to + src.slice(i + from.length);
}

const BINARIZE = `function binarize(data, width, height, returnInverted) {
    if (data.length !== width * height * 4) {
        throw new Error("Malformed data passed to binarizer.");
    }
    var greyscalePixels = new Matrix(width, height);
    var gp = greyscalePixels.data;
    for (var i = 0, n = width * height; i < n; i++) {
        gp[i] = 0.2126 * data[4 * i] + 0.7152 * data[4 * i + 1] + 0.0722 * data[4 * i + 2];
    }
    var horizontalRegionCount = Math.ceil(width / REGION_SIZE);
    var verticalRegionCount = Math.ceil(height / REGION_SIZE);
    var blackPoints = new Matrix(horizontalRegionCount, verticalRegionCount);
    var bp = blackPoints.data;
    for (var verticalRegion = 0; verticalRegion < verticalRegionCount; verticalRegion++) {
        for (var hortizontalRegion = 0; hortizontalRegion < horizontalRegionCount; hortizontalRegion++) {
            var sum = 0;
            var min = Infinity;
            var max = 0;
            for (var y = 0; y < REGION_SIZE; y++) {
                var rowIndex = (verticalRegion * REGION_SIZE + y) * width + hortizontalRegion * REGION_SIZE;
                for (var x = 0; x < REGION_SIZE; x++) {
                    var pixelLumosity = +gp[rowIndex + x]; // undefined past the end: NaN, as Math.min sees it
                    sum += pixelLumosity;
                    // Math.min/Math.max without the calls; a NaN (a read past the image) sticks as there.
                    if (pixelLumosity < min || pixelLumosity !== pixelLumosity) min = pixelLumosity;
                    if (pixelLumosity > max || pixelLumosity !== pixelLumosity) max = pixelLumosity;
                }
            }
            var average = sum / 64;
            if (max - min <= MIN_DYNAMIC_RANGE) {
                average = min / 2;
                if (verticalRegion > 0 && hortizontalRegion > 0) {
                    var averageNeighborBlackPoint = (bp[(verticalRegion - 1) * horizontalRegionCount + hortizontalRegion] +
                        (2 * bp[verticalRegion * horizontalRegionCount + hortizontalRegion - 1]) +
                        bp[(verticalRegion - 1) * horizontalRegionCount + hortizontalRegion - 1]) / 4;
                    if (min < averageNeighborBlackPoint) {
                        average = averageNeighborBlackPoint;
                    }
                }
            }
            bp[verticalRegion * horizontalRegionCount + hortizontalRegion] = average;
        }
    }
    var binarized = BitMatrix_1.BitMatrix.createEmpty(width, height);
    var bd = binarized.data;
    var inverted = null;
    var id = null;
    if (returnInverted) {
        inverted = BitMatrix_1.BitMatrix.createEmpty(width, height);
        id = inverted.data;
    }
    for (var verticalRegion = 0; verticalRegion < verticalRegionCount; verticalRegion++) {
        for (var hortizontalRegion = 0; hortizontalRegion < horizontalRegionCount; hortizontalRegion++) {
            var left = numBetween(hortizontalRegion, 2, horizontalRegionCount - 3);
            var top_1 = numBetween(verticalRegion, 2, verticalRegionCount - 3);
            var sum = 0;
            for (var xRegion = -2; xRegion <= 2; xRegion++) {
                for (var yRegion = -2; yRegion <= 2; yRegion++) {
                    sum += bp[(top_1 + yRegion) * horizontalRegionCount + left + xRegion];
                }
            }
            var threshold = sum / 25;
            for (var xRegion = 0; xRegion < REGION_SIZE; xRegion++) {
                for (var yRegion = 0; yRegion < REGION_SIZE; yRegion++) {
                    var x = hortizontalRegion * REGION_SIZE + xRegion;
                    var y = verticalRegion * REGION_SIZE + yRegion;
                    var lum = gp[y * width + x];
                    bd[y * width + x] = lum <= threshold ? 1 : 0;
                    if (returnInverted) {
                        id[y * width + x] = !(lum <= threshold) ? 1 : 0;
                    }
                }
            }
        }
    }
    if (returnInverted) {
        return { binarized: binarized, inverted: inverted };
    }
    return { binarized: binarized };
}`;

// BitMatrix.get(x, y) is false outside the matrix and !!data[y * width + x] inside.
const ROW_SCAN = `    var mw = matrix.width, mh = matrix.height, md = matrix.data;
    for (var y = 0; y <= mh; y++) {
        var length_1 = 0;
        var lastBit = false;
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
        var rowIndex = y * mw;
        var rowEnd = y < mh ? mw : -1;
        for (var x = -1; x <= mw; x++) {
            var v = x >= 0 && x < rowEnd ? md[rowIndex + x] !== 0 : false;
            if (v === lastBit) {
                length_1++;
                continue;
            }
            s0 = s1; s1 = s2; s2 = s3; s3 = s4; s4 = length_1;
            length_1 = 1;
            lastBit = v;
            var af = (s0 + s1 + s2 + s3 + s4) / 7;
            var validFinderPattern = Math.abs(s0 - af) < af &&
                Math.abs(s1 - af) < af &&
                Math.abs(s2 - 3 * af) < 3 * af &&
                Math.abs(s3 - af) < af &&
                Math.abs(s4 - af) < af &&
                !v;
            var aa = (s2 + s3 + s4) / 3;
            var validAlignmentPattern = Math.abs(s2 - aa) < aa &&
                Math.abs(s3 - aa) < aa &&
                Math.abs(s4 - aa) < aa &&
                v;
            if (validFinderPattern) {
                var endX_1 = x - s3 - s4;
                var startX_1 = endX_1 - s2;
                var line = { startX: startX_1, endX: endX_1, y: y };
                var match = null;
                for (var i = 0; i < activeFinderPatternQuads.length; i++) {
                    var q = activeFinderPatternQuads[i];
                    if ((startX_1 >= q.bottom.startX && startX_1 <= q.bottom.endX) ||
                        (endX_1 >= q.bottom.startX && startX_1 <= q.bottom.endX) ||
                        (startX_1 <= q.bottom.startX && endX_1 >= q.bottom.endX && ((s2 / (q.bottom.endX - q.bottom.startX)) < MAX_QUAD_RATIO &&
                            (s2 / (q.bottom.endX - q.bottom.startX)) > MIN_QUAD_RATIO))) {
                        match = q;
                        break;
                    }
                }
                if (match) {
                    match.bottom = line;
                }
                else {
                    activeFinderPatternQuads.push({ top: line, bottom: line });
                }
            }
            if (validAlignmentPattern) {
                var endX_2 = x - s4;
                var startX_2 = endX_2 - s3;
                var line = { startX: startX_2, y: y, endX: endX_2 };
                var match = null;
                for (var i = 0; i < activeAlignmentPatternQuads.length; i++) {
                    var q = activeAlignmentPatternQuads[i];
                    if ((startX_2 >= q.bottom.startX && startX_2 <= q.bottom.endX) ||
                        (endX_2 >= q.bottom.startX && startX_2 <= q.bottom.endX) ||
                        (startX_2 <= q.bottom.startX && endX_2 >= q.bottom.endX && ((s2 / (q.bottom.endX - q.bottom.startX)) < MAX_QUAD_RATIO &&
                            (s2 / (q.bottom.endX - q.bottom.startX)) > MIN_QUAD_RATIO))) {
                        match = q;
                        break;
                    }
                }
                if (match) {
                    match.bottom = line;
                }
                else {
                    activeAlignmentPatternQuads.push({ top: line, bottom: line });
                }
            }
        }
        var stillF = [];
        for (var i = 0; i < activeFinderPatternQuads.length; i++) {
            var q = activeFinderPatternQuads[i];
            if (q.bottom.y === y) stillF.push(q);
            else if (q.bottom.y - q.top.y >= 2) finderPatternQuads.push(q);
        }
        activeFinderPatternQuads = stillF;
        var stillA = [];
        for (var i = 0; i < activeAlignmentPatternQuads.length; i++) {
            var q = activeAlignmentPatternQuads[i];
            if (q.bottom.y === y) stillA.push(q);
            else alignmentPatternQuads.push(q);
        }
        activeAlignmentPatternQuads = stillA;
    }
`;

const RUNS = `var switchXs = [0, 0, 0, 0, 0, 0, 0, 0];
var switchYs = [0, 0, 0, 0, 0, 0, 0, 0];
function countBlackWhiteRunTowardsPoint(origin, end, matrix, length) {
    var sx = length + 1 > switchXs.length ? new Array(length + 1) : switchXs;
    var sy = length + 1 > switchYs.length ? new Array(length + 1) : switchYs;
    sx[0] = Math.floor(origin.x);
    sy[0] = Math.floor(origin.y);
    var count = 1;
    var steep = Math.abs(end.y - origin.y) > Math.abs(end.x - origin.x);
    var fromX;
    var fromY;
    var toX;
    var toY;
    if (steep) {
        fromX = Math.floor(origin.y);
        fromY = Math.floor(origin.x);
        toX = Math.floor(end.y);
        toY = Math.floor(end.x);
    }
    else {
        fromX = Math.floor(origin.x);
        fromY = Math.floor(origin.y);
        toX = Math.floor(end.x);
        toY = Math.floor(end.y);
    }
    var dx = Math.abs(toX - fromX);
    var dy = Math.abs(toY - fromY);
    var error = Math.floor(-dx / 2);
    var xStep = fromX < toX ? 1 : -1;
    var yStep = fromY < toY ? 1 : -1;
    var currentPixel = true;
    var mw = matrix.width, mh = matrix.height, md = matrix.data;
    for (var x = fromX, y = fromY; x !== toX + xStep; x += xStep) {
        var realX = steep ? y : x;
        var realY = steep ? x : y;
        var pixel = realX < 0 || realX >= mw || realY < 0 || realY >= mh ? false : !!md[realY * mw + realX];
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
    var distances = [];
    for (var i = 0; i < length; i++) {
        if (i + 1 < count) {
            distances.push(Math.sqrt(Math.pow((sx[i + 1] - sx[i]), 2) + Math.pow((sy[i + 1] - sy[i]), 2)));
        }
        else {
            distances.push(0);
        }
    }
    return distances;
}
function countBlackWhiteRun(origin, end, matrix, length) {
    var rise = end.y - origin.y;
    var run = end.x - origin.x;
    var half = Math.ceil(length / 2);
    var towardsEnd = countBlackWhiteRunTowardsPoint(origin, end, matrix, half);
    var awayFromEnd = countBlackWhiteRunTowardsPoint(origin, { x: origin.x - run, y: origin.y - rise }, matrix, half);
    var result = [];
    for (var i = 1; i < awayFromEnd.length; i++) {
        result.push(awayFromEnd[i]);
    }
    result.push(towardsEnd[0] + awayFromEnd[0] - 1);
    for (var i = 1; i < towardsEnd.length; i++) {
        result.push(towardsEnd[i]);
    }
    return result;
}
function scoreBlackWhiteRun(sequence, ratios) {
    var sequenceSum = sequence[0];
    for (var i = 1; i < sequence.length; i++) {
        sequenceSum = sequenceSum + sequence[i];
    }
    var ratioSum = ratios[0];
    for (var i = 1; i < ratios.length; i++) {
        ratioSum = ratioSum + ratios[i];
    }
    var averageSize = sequenceSum / ratioSum;
    var error = 0;
    for (var i = 0; i < ratios.length; i++) {
        error += Math.pow((sequence[i] - ratios[i] * averageSize), 2);
    }
    return { averageSize: averageSize, error: error };
}
`;

/** The patched dist text, or throws naming the patch whose anchor text was not found. */
export function patchJsQR(src) {
  let out = src;
  for (const p of PATCHES) {
    const next = p.apply(out);
    if (next === null) throw new Error(`jsQR patch not applicable (jsqr version changed?): ${p.what}`);
    out = next;
  }
  return out;
}
