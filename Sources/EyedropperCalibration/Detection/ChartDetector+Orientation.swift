import Eyedropper

/// Which way round the chart lies on a grid, and which of its patches are hidden: the detector's
/// fourth step (see `ChartDetector`).
extension ChartDetector {
    struct Placement {
        /// Grid point of the block's (0, 0) corner and, per chart column and row, the grid step.
        var origin: SIMD2<Int>
        var column: SIMD2<Int>
        var row: SIMD2<Int>
        /// The colours' unexplained share with the patches seen (see `unexplained`).
        var error: Double
        /// The least error of any other way round or place on the grid.
        var runnerUp: Double
        /// The seen neutrals fall from white to black.
        var rampFalls: Bool
        /// Patches (bit n - 1 for patch n) whose middle is beyond the frame.
        var outside: UInt32
        /// Patches inside the frame whose colour is not a patch's: covered, or glaring.
        var covered: UInt32
        /// Patches seen as a square region where the grid puts them.
        var members: Int
        /// The most patches beyond the frame of any place and way tried on the grid: more than
        /// can be hidden says why a grid that fits no way was refused.
        var mostOutside = 0

        func grid(column c: Int, row r: Int) -> SIMD2<Int> { origin &+ c &* column &+ r &* row }

        var hidden: UInt32 { outside | covered }
        var visibleCount: Int { 24 - hidden.nonzeroBitCount }
    }

    /// The most patches a chart may have hidden (covered, glaring or beyond the frame) and
    /// still be read: with 18 seen, their colours still tell one way round from every other.
    public static let maximumHidden = 6

    /// Tries every way the 6 x 4 block can lie over grid `index`'s candidates; returns the one
    /// whose colours fit the chart best, with the next best's error as `runnerUp`.
    func place(grid index: Int, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> Placement? {
        let grid = grids[index]
        var aMin = 99, aMax = -99, bMin = 99, bMax = -99
        for k in 0..<grid.count {
            let m = gridMembers[index * 169 + k]
            aMin = min(aMin, Int(m.a))
            aMax = max(aMax, Int(m.a))
            bMin = min(bMin, Int(m.b))
            bMax = max(bMax, Int(m.b))
        }
        var best: Placement?, runnerUp = Double.infinity, mostOutside = 0
        for axes in 0..<2 {
            let longAlongA = axes == 0
            let spanA = longAlongA ? 6 : 4, spanB = longAlongA ? 4 : 6
            for a0 in min(aMin, aMax - spanA + 1)...max(aMin, aMax - spanA + 1) {
                for b0 in min(bMin, bMax - spanB + 1)...max(bMin, bMax - spanB + 1) {
                    let inWindow = readWindow(
                        grid: index, a0: a0, b0: b0, spanA: spanA, spanB: spanB, rgb, width: width, height: height)
                    guard inWindow >= 12 else { continue }
                    for flip in 0..<4 {
                        let flipColumns = flip & 1 != 0, flipRows = flip & 2 != 0
                        let alongA = SIMD2(1, 0), alongB = SIMD2(0, 1)
                        var column = longAlongA ? alongA : alongB, row = longAlongA ? alongB : alongA
                        var origin = SIMD2(a0, b0)
                        if flipColumns {
                            origin &+= 5 &* column
                            column = 0 &- column
                        }
                        if flipRows {
                            origin &+= 3 &* row
                            row = 0 &- row
                        }
                        var placement = Placement(
                            origin: origin, column: column, row: row, error: .infinity, runnerUp: .infinity,
                            rampFalls: false, outside: 0, covered: 0, members: inWindow)
                        score(&placement, a0: a0, b0: b0, spanA: spanA)
                        mostOutside = max(mostOutside, placement.outside.nonzeroBitCount)
                        if let current = best, placement.error >= current.error {
                            runnerUp = min(runnerUp, placement.error)
                        } else {
                            if let current = best { runnerUp = min(runnerUp, current.error) }
                            best = placement
                        }
                    }
                }
            }
        }
        best?.runnerUp = runnerUp
        best?.mostOutside = mostOutside
        return best
    }

    /// Reads the 24 grid points of the window of `spanA` x `spanB` points from (a0, b0): each
    /// one's colour in linear light (25 pixels over its middle), whether it is inside the frame
    /// and whether a candidate sits on it. Returns how many do.
    func readWindow(
        grid index: Int, a0: Int, b0: Int, spanA: Int, spanB: Int, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int
    ) -> Int {
        let map = grids[index].map
        for slot in 0..<24 { windowMember[slot] = false }
        var count = 0
        for k in 0..<grids[index].count {
            let m = gridMembers[index * 169 + k]
            let i = Int(m.a) - a0, j = Int(m.b) - b0
            guard i >= 0, i < spanA, j >= 0, j < spanB else { continue }
            windowMember[i + spanA * j] = true
            count += 1
        }
        guard count >= 12 else { return count }
        for j in 0..<spanB {
            for i in 0..<spanA {
                let slot = i + spanA * j
                windowCovered[slot] = false
                let g = SIMD2(Double(a0 + i), Double(b0 + j))
                guard let colour = sample(map: map, at: g, rgb, width: width, height: height, spread: 0.2) else {
                    windowInside[slot] = false
                    continue
                }
                windowColour[slot] = colour
                windowInside[slot] = true
            }
        }
        // The chart's body: the median of the gaps beside the patches seen as squares.
        var gaps = 0
        for j in 0..<spanB {
            for i in 0..<spanA where windowMember[i + spanA * j] && gaps + 4 <= gapColours.count {
                for offset in Self.gapOffsets {
                    let g = SIMD2(Double(a0 + i), Double(b0 + j)) + offset
                    if let colour = sample(map: map, at: g, rgb, width: width, height: height, spread: 0.05) {
                        gapColours[gaps] = colour
                        gaps += 1
                    }
                }
            }
        }
        guard gaps > 0 else { return count }
        var body = SIMD3<Double>.zero
        for channel in 0..<3 {
            for k in 0..<gaps { sorted[k] = gapColours[k][channel] }
            Self.sortPrefix(&sorted, gaps)
            body[channel] = sorted[gaps / 2]
        }
        // A point not of the body's colour whose colour runs on over the gaps around it is under
        // something (a leaf, a hand): a patch stops at its gap. So is one with a square on it: a
        // disc or a fingertip on one patch alone is as compact as a patch, and sits where one is.
        for j in 0..<spanB {
            for i in 0..<spanA {
                let slot = i + spanA * j
                guard windowInside[slot] else { continue }
                let colour = windowColour[slot]
                guard !Self.alike(colour, body) else { continue }
                var running = 0
                for offset in Self.gapOffsets {
                    let g = SIMD2(Double(a0 + i), Double(b0 + j)) + offset
                    if let gap = sample(map: map, at: g, rgb, width: width, height: height, spread: 0.05), Self.alike(gap, colour) {
                        running += 1
                    }
                }
                windowCovered[slot] = running >= 3
            }
        }
        return count
    }

    static let gapOffsets = [SIMD2(0.5, 0.0), SIMD2(-0.5, 0.0), SIMD2(0.0, 0.5), SIMD2(0.0, -0.5)]

    /// Two colours (linear) within a fifth of the brighter's sum of each other.
    @inline(__always) static func alike(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Bool {
        let d = a - b
        let difference = abs(d.x) + abs(d.y) + abs(d.z)
        return difference <= 0.2 * max(a.sum(), b.sum()) + 0.01
    }

    /// The mean colour (linear) of 25 pixels spread over `spread` steps about grid point `g`,
    /// or nil when they are not all inside the frame.
    @inline(__always) private func sample(
        map: Projective, at g: SIMD2<Double>, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int, spread: Double
    ) -> SIMD3<Double>? {
        let point = map.map(g)
        let du = map.map(g + SIMD2(1, 0)) - point
        let reach = spread * (du * du).sum().squareRoot()
        guard point.x - reach >= 0, point.y - reach >= 0, point.x + reach < Double(width), point.y + reach < Double(height)
        else { return nil }
        var sum = SIMD3<Double>.zero
        for v in -2...2 {
            for u in -2...2 {
                let x = Int(point.x + Double(u) * reach / 2), y = Int(point.y + Double(v) * reach / 2)
                let p = rgb + 3 * (y * width + x)
                sum += SIMD3(linear[Int(p[0])], linear[Int(p[1])], linear[Int(p[2])])
            }
        }
        return sum / 25
    }

    /// Sorts the first `count` values (insertion: at most a few hundred, no allocation).
    static func sortPrefix(_ values: inout [Double], _ count: Int) {
        guard count > 1 else { return }
        for i in 1..<count {
            var j = i
            while j > 0 && values[j - 1] > values[j] {
                values.swapAt(j - 1, j)
                j -= 1
            }
        }
    }

    /// Scores `placement` on the window read last: the colours at its 24 points fitted to the
    /// chart's by one 3x3 matrix and a smooth gain in linear light (`unexplained`), and whether
    /// the grey ramp falls. A point with no candidate on it whose colour fits far worse than
    /// the patches seen as squares is taken as hidden (a leaf, a finger, glare), the worst
    /// first, up to `maximumHidden` with those beyond the frame.
    func score(_ placement: inout Placement, a0: Int, b0: Int, spanA: Int) {
        var outside: UInt32 = 0
        for patch in 0..<24 {
            let g = placement.grid(column: patch % 6, row: patch / 6)
            let slot = (g.x - a0) + spanA * (g.y - b0)
            measured[patch] = windowColour[slot]
            present[patch] = windowInside[slot]
            member[patch] = windowMember[slot]
            if !windowInside[slot] { outside |= 1 << UInt32(patch) }
        }
        placement.outside = outside
        var covered: UInt32 = 0
        guard outside.nonzeroBitCount <= Self.maximumHidden else { return }
        var error = Self.unexplained(measured, reference, present: present, residuals: &residuals)
        // Points whose colour runs on over their gaps and misfits: under something.
        for patch in 0..<24 where present[patch] && residuals[patch] > Self.coveredResidual {
            let g = placement.grid(column: patch % 6, row: patch / 6)
            if windowCovered[(g.x - a0) + spanA * (g.y - b0)] {
                present[patch] = false
                covered |= 1 << UInt32(patch)
            }
        }
        placement.covered = covered
        guard (outside | covered).nonzeroBitCount <= Self.maximumHidden else { return }
        if covered != 0 { error = Self.unexplained(measured, reference, present: present, residuals: &residuals) }
        while (outside | covered).nonzeroBitCount < Self.maximumHidden, error.isFinite {
            // The typical misfit of a patch seen as a square, and the worst of the others.
            var typical = 0.0, n = 0
            for patch in 0..<24 where present[patch] && member[patch] {
                sorted[n] = residuals[patch]
                n += 1
            }
            guard n >= 12 else { break }
            Self.sortPrefix(&sorted, n)
            typical = sorted[n / 2]
            // A square may be a glare spot's, or a patch with one: hidden only when it misfits
            // grossly.
            var worst = -1
            for patch in 0..<24 where present[patch] && (worst < 0 || residuals[patch] > residuals[worst]) {
                if member[patch] && residuals[patch] <= Self.glareResidual { continue }
                worst = patch
            }
            guard worst >= 0, residuals[worst] > max(Self.hiddenResidual, 9 * typical) else { break }
            present[worst] = false
            covered |= 1 << UInt32(worst)
            error = Self.unexplained(measured, reference, present: present, residuals: &residuals)
        }
        placement.covered = covered
        var falls = true
        var previous = -1
        for patch in 18..<24 where present[patch] {
            if previous >= 0 && measured[previous].sum() <= measured[patch].sum() { falls = false }
            previous = patch
        }
        placement.rampFalls = falls
        placement.error = error
    }

    /// A point not seen as a square is hidden only when its colour misfits by more than this
    /// share of the reference's variance per patch (and 9 times the typical patch's): a leaf
    /// on a white patch misfits by 0.5 or more, a dark patch merged with the chart's body by
    /// a few hundredths.
    static let hiddenResidual = 0.15
    /// The misfit past which a point whose colour runs on over its gaps is hidden: lower, for
    /// the colour running on is evidence of its own (a dark patch under a leaf misfits little).
    static let coveredResidual = 0.05
    /// The misfit past which a point with a square on it is hidden: glare, which whitens a
    /// patch into a square of its own, misfits by several times the reference's variance.
    static let glareResidual = 1.0

    /// How well one 3x3 matrix M and light that varies smoothly over the chart (a gain
    /// g = g0 + g1 column + g2 row) take the colours `x` measured at the patches `present` to
    /// the chart's `y`, in linear light: the share of y's variance left, least squares. The gain
    /// is what lets a chart lit from one side fit as well as one lit evenly. `residuals` gets
    /// each present patch's squared misfit over the mean squared deviation of y.
    static func unexplained(_ x: [SIMD3<Double>], _ y: [SIMD3<Double>], present: [Bool], residuals: inout [Double])
        -> Double
    {
        guard let (m, gain) = colourFit(x, y, present: present) else { return .infinity }
        var mean = SIMD3<Double>.zero, count = 0.0
        for i in 0..<24 where present[i] {
            mean += y[i]
            count += 1
        }
        mean /= count
        var residual = 0.0, total = 0.0
        for i in 0..<24 where present[i] {
            let e = Self.gain(gain, patch: i) * (m * x[i]) - y[i], d = y[i] - mean
            residuals[i] = (e * e).sum()
            residual += residuals[i]
            total += (d * d).sum()
        }
        for i in 0..<24 { residuals[i] = present[i] ? residuals[i] * count / total : 0 }
        return residual / total
    }

    /// The matrix M and gain (g0, g1, g2) of `unexplained`, or nil when the colours present do
    /// not span three dimensions.
    static func colourFit(_ x: [SIMD3<Double>], _ y: [SIMD3<Double>], present: [Bool]) -> (Matrix3, SIMD3<Double>)? {
        var gain = SIMD3<Double>(1, 0, 0)
        var m = Matrix3.zero
        for round in 0..<3 {
            var xx = Matrix3.zero, yx = Matrix3.zero
            for i in 0..<24 where present[i] {
                let g = round == 0 ? 1 : Self.gain(gain, patch: i)
                xx.addOuter(g * x[i], g * x[i])
                yx.addOuter(y[i], g * x[i])
            }
            guard let inverse = xx.regularInverse else { return nil }
            m = yx * inverse
            if round == 2 { break }
            // The gain that best scales each M x[i] onto y[i], weighted by |M x[i]|^2.
            var normal = Matrix3.zero, right = SIMD3<Double>.zero
            for i in 0..<24 where present[i] {
                let predicted = m * x[i]
                let weight = (predicted * predicted).sum()
                guard weight > 0 else { continue }
                let target = (predicted * y[i]).sum() / weight
                let basis = SIMD3(1, Double(i % 6), Double(i / 6))
                normal.addOuter(weight * basis, basis)
                right += weight * target * basis
            }
            guard let solve = normal.regularInverse else { break }
            gain = solve * right
        }
        return (m, gain)
    }

    @inline(__always) static func gain(_ g: SIMD3<Double>, patch: Int) -> Double {
        max(0.05, g.x + g.y * Double(patch % 6) + g.z * Double(patch / 6))
    }
}
