/// The detector's first two steps (see `ChartDetector`): regions of like colour at every level
/// of a pyramid, and those shaped like a patch.
extension ChartDetector {
    /// One level of the pyramid: the frame averaged over blocks of `scale` x `scale` pixels.
    struct Level {
        var width: Int
        var height: Int
        /// Where its pixels start in the per-pixel buffers (labels, sizes, candidateOfRegion).
        var offset: Int
        /// Where its RGB starts in `pyramid` (level 0 is the frame itself).
        var rgbOffset: Int
        var scale: Int
    }

    /// The coarsest level keeps at least this many pixels on its shorter side: a chart filling
    /// it still has patches of some 30 pixels, and a coarser level would have none to find.
    static let coarsestSide = 160

    /// The levels for a frame of `width` x `height`: the frame, then each level half the one
    /// before (2 x 2 means), while the shorter side stays at least `coarsestSide`.
    static func levels(width: Int, height: Int, into levels: inout [Level]) {
        levels.removeAll(keepingCapacity: true)
        levels.append(Level(width: width, height: height, offset: 0, rgbOffset: 0, scale: 1))
        var offset = width * height, rgbOffset = 0
        while let last = levels.last, min(last.width, last.height) / 2 >= coarsestSide {
            let level = Level(width: last.width / 2, height: last.height / 2, offset: offset, rgbOffset: rgbOffset, scale: 2 * last.scale)
            levels.append(level)
            offset += level.width * level.height
            rgbOffset += 3 * level.width * level.height
        }
    }

    /// Level `index` (from 1) made from the one before: each pixel the rounded mean of 2 x 2.
    func downsample(_ index: Int, frame: UnsafePointer<UInt8>) {
        let from = levels[index - 1], to = levels[index]
        let source = index == 1 ? frame : UnsafePointer(pyramid + from.rgbOffset)
        let target = pyramid + to.rgbOffset
        let sourceStride = 3 * from.width
        for y in 0..<to.height {
            let top = source + 2 * y * sourceStride, bottom = top + sourceStride
            let out = target + 3 * y * to.width
            for x in 0..<to.width {
                let i = 6 * x
                for c in 0..<3 {
                    let sum = UInt16(top[i + c]) + UInt16(top[i + 3 + c]) + UInt16(bottom[i + c]) + UInt16(bottom[i + 3 + c])
                    out[3 * x + c] = UInt8(truncatingIfNeeded: (sum + 2) >> 2)
                }
            }
        }
    }

    /// How different two neighbouring pixels of one patch may be: three times the median
    /// difference of horizontal neighbours (mostly noise, since most of a frame is smooth),
    /// plus a floor, summed over the three channels.
    func noiseThreshold(_ rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> Int32 {
        for index in differenceHistogram.indices { differenceHistogram[index] = 0 }
        var total = 0
        guard width > 1 else { return 24 }
        var y = 0
        while y < height {
            let row = rgb + y * width * 3
            var x = 1
            while x < width {
                let p = row + x * 3
                let d = abs(Int(p[0]) - Int(p[-3])) + abs(Int(p[1]) - Int(p[-2])) + abs(Int(p[2]) - Int(p[-1]))
                differenceHistogram[d] += 1
                total += 1
                x += 3
            }
            y += 4
        }
        var seen = 0, median = 0
        for (value, count) in differenceHistogram.enumerated() {
            seen += count
            if 2 * seen >= total {
                median = value
                break
            }
        }
        return Int32(min(60, max(18, 3 * median + 12)))
    }

    /// Joins neighbouring pixels closer than `threshold`; afterwards `labels[p]` is `-(r + 1)`
    /// for region r and `sizes[r]` counts its pixels. Returns the number of regions.
    func label(
        _ rgb: UnsafePointer<UInt8>, width: Int, height: Int, threshold: Int32, labels: UnsafeMutablePointer<Int32>,
        sizes: UnsafeMutablePointer<Int32>
    ) -> Int {
        @inline(__always) func find(_ start: Int32) -> Int32 {
            var i = start
            while true {
                let parent = labels[Int(i)]
                if parent == i { return i }
                let grand = labels[Int(parent)]
                labels[Int(i)] = grand
                i = grand
            }
        }
        @inline(__always) func close(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> Bool {
            let d = abs(Int32(a[0]) - Int32(b[0])) + abs(Int32(a[1]) - Int32(b[1])) + abs(Int32(a[2]) - Int32(b[2]))
            return d < threshold
        }
        // Two neighbours join only when each is also close to the pixel beyond the other: on a
        // blurred edge every step may be small, but two steps are twice one, so the ramp from a
        // patch into the chart's dark gap does not join them (noise between pixels two apart is
        // no larger than between neighbours). Checked on both sides of the pair, so a region
        // loses its edge pixels evenly all round and its centre stays put. Each check of pixels
        // two apart serves two pairs: the one after the pair it is worked out for is the one
        // before the next pair (carried along a row; down a column, kept a row at a time in
        // `sizes`, unused until the count below).
        @inline(__always) func joins(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>, _ step: Int, before: Bool, after: Bool)
            -> Bool
        {
            close(p, q) && (!before || close(p, q - step)) && (!after || close(p + step, q))
        }
        // The first row: joins to the left only.
        labels[0] = 0
        for x in 1..<max(1, width) {
            let p = rgb + 3 * x
            labels[x] = joins(p, p - 3, 3, before: x >= 2, after: x + 1 < width) ? find(Int32(x - 1)) : Int32(x)
        }
        let stride = 3 * width
        // farAbove[x]: pixel x of this row is close to pixel x two rows up (1 where there is none).
        let farAbove = sizes
        for x in 0..<width { farAbove[x] = 1 }
        for y in 1..<max(1, height) {
            let rowStart = y * width
            var p = rgb + 3 * rowStart
            let below = y + 1 < height
            // The pair (p, the pixel above): the far pixel on each side; the one below is the next
            // row's far pixel above.
            @inline(__always) func joinsUp(_ p: UnsafePointer<UInt8>, _ x: Int) -> Bool {
                let beyondAbove = farAbove[x] != 0
                let beyondBelow = !below || close(p + stride, p - stride)
                farAbove[x] = beyondBelow ? 1 : 0
                return beyondAbove && beyondBelow && close(p, p - stride)
            }
            // The first pixel of a row: joins upwards only.
            labels[rowStart] = joinsUp(p, 0) ? find(Int32(rowStart - width)) : Int32(rowStart)
            p += 3
            // Pixel x close to pixel x - 2 (true for x = 1, which has none).
            var farLeft = true
            for index in (rowStart + 1)..<(rowStart + width) {
                var root = Int32(index)
                let x = index - rowStart
                let farRight = x + 1 >= width || close(p + 3, p - 3)
                let left = farLeft && farRight && close(p, p - 3)
                farLeft = farRight
                if left { root = find(Int32(index - 1)) }
                if joinsUp(p, x) {
                    let up = labels[index - width] == labels[index - 1] && left ? root : find(Int32(index - width))
                    if !left {
                        root = up
                    } else if up != root {
                        if up < root {
                            labels[Int(root)] = up
                            root = up
                        } else {
                            labels[Int(up)] = root
                        }
                    }
                }
                labels[index] = root
                p += 3
            }
        }
        // Every pixel points at an earlier pixel of its region (or itself, the region's first):
        // in raster order, each takes the number its parent already has.
        var regions: Int32 = 0
        for index in 0..<(width * height) {
            let parent = labels[index]
            if parent == Int32(index) {
                sizes[Int(regions)] = 1
                regions += 1
                labels[index] = -regions
            } else {
                let region = labels[Int(parent)]
                labels[index] = region
                sizes[Int(-region - 1)] += 1
            }
        }
        return Int(regions)
    }

    // MARK: - Candidate patches

    struct Moments {
        var n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0
    }

    struct Candidate {
        /// In pixels of the frame.
        var center: SIMD2<Double>
        /// In pixels of the frame.
        var area: Double
        /// The grid it belongs to, or -1.
        var grid: Int32
        /// The side of a pixel of the level it was found at, in pixels of the frame.
        var scale: Double
    }

    /// The smallest patch looked for, in pixels of a level: about 8 x 8.
    static let minimumArea = 60
    /// The largest, as a share of the square on the level's shorter side: the chart's 4 rows
    /// of patches (3.86 steps from edge to edge) filling that side make patches of 0.05 of it,
    /// and the near side of a tilted chart more.
    static let maximumAreaShare = 0.1

    /// The regions of level `index` shaped like a patch, added to `candidates` in pixels of the
    /// frame; one already found as a patch at the level below (finer) is not added again.
    func findCandidates(level index: Int, regions: Int) {
        let level = levels[index]
        let (width, height) = (level.width, level.height)
        let labels = self.labels + level.offset, sizes = self.sizes + level.offset
        let candidateOfRegion = self.candidateOfRegion + level.offset
        let shorter = Double(min(width, height))
        let maximumArea = max(Self.minimumArea + 1, Int(Self.maximumAreaShare * shorter * shorter))
        moments.removeAll(keepingCapacity: true)
        for region in 0..<regions {
            let size = Int(sizes[region])
            if size >= Self.minimumArea && size <= maximumArea {
                candidateOfRegion[region] = Int32(moments.count)
                moments.append(Moments())
            } else {
                candidateOfRegion[region] = -1
            }
        }
        guard !moments.isEmpty else { return }
        moments.withUnsafeMutableBufferPointer { moments in
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    let candidate = candidateOfRegion[Int(-labels[row + x] - 1)]
                    if candidate < 0 { continue }
                    moments[Int(candidate)].n += 1
                    moments[Int(candidate)].sx += x
                    moments[Int(candidate)].sy += y
                    moments[Int(candidate)].sxx += x * x
                    moments[Int(candidate)].sxy += x * y
                    moments[Int(candidate)].syy += y * y
                }
            }
        }
        let scale = Double(level.scale)
        let finer = index > 0 ? levels[index - 1] : nil
        for region in 0..<regions {
            let slot = candidateOfRegion[region]
            guard slot >= 0 else { continue }
            let m = moments[Int(slot)]
            guard let center = Self.squareCenter(m) else {
                candidateOfRegion[region] = -1
                continue
            }
            if let finer {
                // The same patch seen one level down: its region there, if that was a patch.
                let x = min(finer.width - 1, Int(2 * center.x)), y = min(finer.height - 1, Int(2 * center.y))
                let below = self.labels[finer.offset + y * finer.width + x]
                if self.candidateOfRegion[finer.offset + Int(-below - 1)] >= 0 { continue }
            }
            candidates.append(Candidate(center: center * scale, area: Double(m.n) * scale * scale, grid: -1, scale: scale))
        }
    }

    /// The centre (in the level's pixels) of a region whose second moments say "a convex
    /// parallelogram", or nil. Area against the moment ellipse's is 3/pi = 0.955 for any
    /// parallelogram at any tilt, 1 for an ellipse, 0.83 for a triangle.
    static func squareCenter(_ m: Moments) -> SIMD2<Double>? {
        let n = Double(m.n)
        let mx = Double(m.sx) / n, my = Double(m.sy) / n
        // The variance of a pixel's own square (1/12) added: what a continuous region has.
        let vxx = Double(m.sxx) / n - mx * mx + 1.0 / 12
        let vyy = Double(m.syy) / n - my * my + 1.0 / 12
        let vxy = Double(m.sxy) / n - mx * my
        let det = vxx * vyy - vxy * vxy
        guard det > 0 else { return nil }
        let fill = n / (4 * Double.pi * det.squareRoot())
        guard fill > 0.88 && fill < 1.03 else { return nil }
        let half = (vxx + vyy) / 2, spread = ((vxx - vyy) * (vxx - vyy) / 4 + vxy * vxy).squareRoot()
        guard half - spread > 0, (half + spread) / (half - spread) < 9 else { return nil }
        return SIMD2(mx + 0.5, my + 0.5)
    }
}
