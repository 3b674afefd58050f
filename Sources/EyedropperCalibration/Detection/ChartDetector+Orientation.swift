import Eyedropper

/// Which way round the chart lies on a grid, and the chart read that way: the detector's last
/// two steps (see `ChartDetector`).
extension ChartDetector {
    // MARK: - Which way round

    struct Placement {
        /// Grid point of the block's (0, 0) corner and, per chart column and row, the grid step.
        var origin: SIMD2<Int>
        var column: SIMD2<Int>
        var row: SIMD2<Int>
        var error: Double
        var runnerUp: Double
        var rampFalls: Bool
        var inside: Bool
        var members: Int

        func grid(column c: Int, row r: Int) -> SIMD2<Int> { origin &+ c &* column &+ r &* row }
    }

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
        var best: Placement?, runnerUp = Double.infinity
        for axes in 0..<2 {
            let longAlongA = axes == 0
            let spanA = longAlongA ? 6 : 4, spanB = longAlongA ? 4 : 6
            for a0 in min(aMin, aMax - spanA + 1)...max(aMin, aMax - spanA + 1) {
                for b0 in min(bMin, bMax - spanB + 1)...max(bMin, bMax - spanB + 1) {
                    var inWindow = 0
                    for k in 0..<grid.count {
                        let m = gridMembers[index * 169 + k]
                        if Int(m.a) >= a0 && Int(m.a) < a0 + spanA && Int(m.b) >= b0 && Int(m.b) < b0 + spanB { inWindow += 1 }
                    }
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
                            rampFalls: false, inside: true, members: inWindow)
                        score(&placement, map: grid.map, rgb, width: width, height: height)
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
        return best
    }

    /// The colours at the 24 points of `placement`, fitted to the chart's by one 3x3 matrix in
    /// linear light: the unexplained share of the reference's variance, and whether the grey
    /// ramp falls from white to black.
    private func score(_ placement: inout Placement, map: Projective, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        var seen = 0
        for patch in 0..<24 {
            let g = placement.grid(column: patch % 6, row: patch / 6)
            let point = map.map(SIMD2(Double(g.x), Double(g.y)))
            let du = map.map(SIMD2(Double(g.x + 1), Double(g.y))) - point
            let reach = 0.2 * (du * du).sum().squareRoot()
            guard point.x - reach >= 0, point.y - reach >= 0, point.x + reach < Double(width), point.y + reach < Double(height)
            else {
                // Beyond the frame: the fit goes on without it, and the chart is not usable.
                placement.inside = false
                present[patch] = false
                continue
            }
            var sum = SIMD3<Double>.zero
            for j in -2...2 {
                for i in -2...2 {
                    let x = Int(point.x + Double(i) * reach / 2), y = Int(point.y + Double(j) * reach / 2)
                    let p = rgb + 3 * (y * width + x)
                    sum += SIMD3(linear[Int(p[0])], linear[Int(p[1])], linear[Int(p[2])])
                }
            }
            measured[patch] = sum / 25
            present[patch] = true
            seen += 1
        }
        guard seen >= 16 else { return }
        var falls = true
        for patch in 18..<23 where present[patch] && present[patch + 1] && measured[patch].sum() <= measured[patch + 1].sum() {
            falls = false
        }
        placement.rampFalls = falls
        placement.error = Self.unexplained(measured, reference, present: present)
    }

    /// How well one 3x3 matrix M and light that varies smoothly over the chart (a gain
    /// g = g0 + g1 column + g2 row) take the colours `x` measured at the 24 patches to the
    /// chart's `y`, in linear light: the share of y's variance left, least squares. The gain
    /// is what lets a chart lit from one side fit as well as one lit evenly.
    static func unexplained(_ x: [SIMD3<Double>], _ y: [SIMD3<Double>], present: [Bool]) -> Double {
        var gain = SIMD3<Double>(1, 0, 0)
        var m = Matrix3.zero
        for round in 0..<3 {
            var xx = Matrix3.zero, yx = Matrix3.zero
            for i in 0..<24 where present[i] {
                let g = round == 0 ? 1 : Self.gain(gain, patch: i)
                xx.addOuter(g * x[i], g * x[i])
                yx.addOuter(y[i], g * x[i])
            }
            guard let inverse = xx.regularInverse else { return .infinity }
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
        var mean = SIMD3<Double>.zero, count = 0.0
        for i in 0..<24 where present[i] {
            mean += y[i]
            count += 1
        }
        mean /= count
        var residual = 0.0, total = 0.0
        for i in 0..<24 where present[i] {
            let e = Self.gain(gain, patch: i) * (m * x[i]) - y[i], d = y[i] - mean
            residual += (e * e).sum()
            total += (d * d).sum()
        }
        return residual / total
    }

    @inline(__always) private static func gain(_ g: SIMD3<Double>, patch: Int) -> Double {
        max(0.05, g.x + g.y * Double(patch % 6) + g.z * Double(patch / 6))
    }

    // MARK: - The chart

    func finish(grid index: Int, placement: Placement, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        let grid = grids[index]
        // Grid point back to the chart's column and row: the placement's steps are unit vectors
        // along a or b, so a dot product inverts them.
        pointsFrom.removeAll(keepingCapacity: true)
        pointsTo.removeAll(keepingCapacity: true)
        for k in 0..<grid.count {
            let m = gridMembers[index * 169 + k]
            let offset = SIMD2(Int(m.a), Int(m.b)) &- placement.origin
            let column = (offset &* placement.column).wrappedSum(), row = (offset &* placement.row).wrappedSum()
            guard (0..<6).contains(column), (0..<4).contains(row) else { continue }
            pointsFrom.append(SIMD2(Double(column), Double(row)))
            pointsTo.append(candidates[Int(m.candidate)].center)
        }
        let map =
            Projective.fit(from: pointsFrom, to: pointsTo, origin: grid.map.origin, scale: grid.map.scale, scratch: &normal)
            ?? grid.map.composed(placement)
        let half = Self.patchFraction / 2
        var residual = 0.0
        for (from, to) in zip(pointsFrom, pointsTo) {
            let d = map.map(from) - to
            residual += (d * d).sum()
        }
        let step = map.map(SIMD2(1, 0)) - map.map(SIMD2(0, 0)), down = map.map(SIMD2(0, 1)) - map.map(SIMD2(0, 0))
        let pitch = min((step * step).sum(), (down * down).sum()).squareRoot()
        chart.mirrored = cross(step, down) < 0
        chart.residual = (residual / Double(max(1, pointsFrom.count))).squareRoot() / pitch
        chart.pitch = pitch
        chart.width = width
        chart.height = height
        for patch in 0..<24 {
            let c = Double(patch % 6), r = Double(patch / 6)
            chart.centers[patch] = map.map(SIMD2(c, r))
            chart.corners[4 * patch] = map.map(SIMD2(c - half, r - half))
            chart.corners[4 * patch + 1] = map.map(SIMD2(c + half, r - half))
            chart.corners[4 * patch + 2] = map.map(SIMD2(c + half, r + half))
            chart.corners[4 * patch + 3] = map.map(SIMD2(c - half, r + half))
        }
        measurePatches(map: map, rgb, width: width, height: height)
        // Sure when the colours fit closely, far better than any other way round, and the
        // patches found agree with the grid.
        let fit = max(0, 1 - placement.error / Self.notAChart)
        let margin = placement.runnerUp.isFinite ? max(0, 1 - placement.error / placement.runnerUp) : 1
        let seen = min(1, Double(pointsFrom.count) / 18)
        let geometry = max(0, 1 - chart.residual / 0.25)
        chart.confidence = min(1, (0.5 + 0.5 * fit) * margin * seen * (0.5 + 0.5 * geometry))
    }

    /// Each patch's mean and standard deviation (8-bit levels) over its middle: the part of the
    /// square within 0.3 of a step of its centre, away from the blurred edges.
    private func measurePatches(map: Projective, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        guard let inverse = map.inverse else { return }
        let inner = 0.3
        for patch in 0..<24 {
            let c = Double(patch % 6), r = Double(patch / 6)
            var lo = SIMD2(Double.infinity, .infinity), hi = -lo
            for corner in 0..<4 {
                let p = map.map(SIMD2(c + (corner & 1 == 0 ? -inner : inner), r + (corner & 2 == 0 ? -inner : inner)))
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
            }
            let x0 = max(0, Int(lo.x)), x1 = min(width - 1, Int(hi.x)), y0 = max(0, Int(lo.y)), y1 = min(height - 1, Int(hi.y))
            var n = 0.0, sum = SIMD3<Double>.zero, squares = SIMD3<Double>.zero
            if x0 <= x1 && y0 <= y1 {
                for y in y0...y1 {
                    for x in x0...x1 {
                        let g = inverse.map(SIMD2(Double(x) + 0.5, Double(y) + 0.5))
                        guard abs(g.x - c) <= inner, abs(g.y - r) <= inner else { continue }
                        let p = rgb + 3 * (y * width + x)
                        let v = SIMD3(Double(p[0]), Double(p[1]), Double(p[2]))
                        n += 1
                        sum += v
                        squares += v * v
                    }
                }
            }
            if n == 0 {
                let p = chart.centers[patch]
                let x = min(width - 1, max(0, Int(p.x))), y = min(height - 1, max(0, Int(p.y)))
                let q = rgb + 3 * (y * width + x)
                chart.means[patch] = SIMD3(Double(q[0]), Double(q[1]), Double(q[2]))
                chart.deviations[patch] = .zero
                continue
            }
            let mean = sum / n
            chart.means[patch] = mean
            chart.deviations[patch] = (pointwiseMax(.zero, squares / n - mean * mean)).squareRoot()
        }
    }
}
