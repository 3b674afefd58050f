import Eyedropper

/// The chart read from the placement that won: the detector's last step (see `ChartDetector`).
extension ChartDetector {
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
        chart.patchFraction = min(0.95, max(0.6, measuredPatchFraction(grid: index, placement: placement, map: map)))
        let half = chart.patchFraction / 2
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
        var seen = 0
        for patch in 0..<24 {
            let bit = UInt32(1) << UInt32(patch)
            chart.visible[patch] = placement.hidden & bit == 0
            chart.outside[patch] = placement.outside & bit != 0
            present[patch] = chart.visible[patch]
        }
        for k in 0..<pointsFrom.count {
            let patch = Int(pointsFrom[k].y) * 6 + Int(pointsFrom[k].x)
            if chart.visible[patch] { seen += 1 }
        }
        chart.colorDifference = colorDifference()
        // Sure when the colours fit this way round far better than any other, enough patches
        // were seen as squares, and they agree with the grid.
        let margin = placement.runnerUp.isFinite ? max(0, 1 - placement.error / placement.runnerUp) : 1
        let squares = min(1, Double(seen) / 16)
        let geometry = max(0, 1 - chart.residual / 0.25)
        chart.confidence = min(1, margin * squares * (0.5 + 0.5 * geometry))
    }

    /// The patch's side over the step, from the squares seen: the square root of the median
    /// of their areas over their grid cells'. A ColorChecker Classic's is 0.86 (38 mm on 44 mm),
    /// a Classic Mini's less. The regions stop short of the blurred edges, so this still reads
    /// a little under the printed size.
    private func measuredPatchFraction(grid index: Int, placement: Placement, map: Projective) -> Double {
        var n = 0
        for k in 0..<grids[index].count {
            let m = gridMembers[index * 169 + k]
            let offset = SIMD2(Int(m.a), Int(m.b)) &- placement.origin
            let column = (offset &* placement.column).wrappedSum(), row = (offset &* placement.row).wrappedSum()
            guard (0..<6).contains(column), (0..<4).contains(row), n < sorted.count else { continue }
            let from = SIMD2(Double(column), Double(row))
            let du = map.map(from + SIMD2(0.5, 0)) - map.map(from - SIMD2(0.5, 0))
            let dv = map.map(from + SIMD2(0, 0.5)) - map.map(from - SIMD2(0, 0.5))
            let cell = abs(cross(du, dv))
            guard cell > 0 else { continue }
            // A region stops a pixel short of each edge (its level's pixel): the side it had.
            let candidate = candidates[Int(m.candidate)]
            let side = candidate.area.squareRoot() + 2 * candidate.scale
            sorted[n] = side * side / cell
            n += 1
        }
        guard n > 0 else { return Self.patchFraction }
        Self.sortPrefix(&sorted, n)
        return sorted[n / 2].squareRoot()
    }

    /// The median CIEDE2000 between the reference and the colours of the visible patches taken to
    /// it by the best 3x3 matrix and smooth light (as the orientation was scored): how far this
    /// chart's colours are from the reference's, whatever the camera's colour balance.
    private func colorDifference() -> Double {
        for patch in 0..<24 {
            let mean = chart.means[patch] / 255
            measured[patch] = SIMD3(SRGB.decode(mean.x), SRGB.decode(mean.y), SRGB.decode(mean.z))
        }
        guard let (m, gain) = Self.colourFit(measured, reference, present: present) else { return .infinity }
        var count = 0
        for patch in 0..<24 where present[patch] {
            let predicted = Self.gain(gain, patch: patch) * (m * measured[patch])
            let lab = CIEXYZ(SRGB.toXYZD50 * predicted).lab(), target = CIEXYZ(SRGB.toXYZD50 * reference[patch]).lab()
            sorted[count] = lab.deltaE2000(target)
            count += 1
        }
        Self.sortPrefix(&sorted, count)
        return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
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
