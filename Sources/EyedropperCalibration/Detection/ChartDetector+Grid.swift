/// The detector's third step (see `ChartDetector`): grids of candidate patches.
extension ChartDetector {
    // MARK: - Grids

    struct Member {
        var candidate: Int32
        var a: Int8
        var b: Int8
    }

    struct Grid {
        /// Grid steps (a, b) to pixels.
        var map: Projective
        var count: Int
    }

    /// Grows a grid from every candidate not yet on one, and keeps those of 12 or more
    /// candidates (at most `maximumGrids`, the largest).
    func findGrids() {
        grids.removeAll(keepingCapacity: true)
        let count = candidates.count
        guard count >= 12 else { return }
        for seed in 0..<count where candidates[seed].grid < 0 {
            guard let (u, v) = steps(from: seed) else { continue }
            let origin = candidates[seed].center
            guard var map = Projective(origin: origin, u: u, v: v) else { continue }
            var members = 0
            for round in 0..<6 {
                members = assign(map: map, radius: min(6, round + 1 + round / 4), tolerance: round < 3 ? 1.0 / 3 : 0.2)
                guard members >= 3, let refined = fit(map: map) else { break }
                map = refined
            }
            members = assign(map: map, radius: 6, tolerance: 0.2)
            guard members >= 12 else { continue }
            // Most of its members on an earlier grid: the same grid grown again; keep the larger.
            // A few shared is a neighbour (a Passport's other panel, a row of clutter) that the
            // grid's extension reached, and both are kept.
            for index in grids.indices { shared[index] = 0 }
            for slot in 0..<169 where slots[slot] >= 0 {
                let owner = candidates[Int(slots[slot])].grid
                if owner >= 0 { shared[Int(owner)] += 1 }
            }
            var overlaps = -1
            for index in grids.indices where 2 * shared[index] >= members && (overlaps < 0 || shared[index] > shared[overlaps]) {
                overlaps = index
            }
            let index: Int
            if overlaps >= 0 {
                guard members > grids[overlaps].count else { continue }
                index = overlaps
            } else if grids.count < Self.maximumGrids {
                index = grids.count
                grids.append(Grid(map: map, count: members))
            } else {
                // Full: this grid takes the place of the smallest, if it is larger.
                var smallest = 0
                for other in grids.indices where grids[other].count < grids[smallest].count { smallest = other }
                guard members > grids[smallest].count else { continue }
                index = smallest
            }
            for c in 0..<count where candidates[c].grid == Int32(index) { candidates[c].grid = -1 }
            grids[index] = Grid(map: map, count: members)
            var k = 0
            for slot in 0..<169 where slots[slot] >= 0 {
                candidates[Int(slots[slot])].grid = Int32(index)
                gridMembers[index * 169 + k] = Member(candidate: slots[slot], a: Int8(slot / 13 - 6), b: Int8(slot % 13 - 6))
                k += 1
            }
        }
    }

    /// The grid's two steps at `seed`: to its nearest candidate of a like size, and to the
    /// nearest one off that line; reduced (Lagrange) so that they are the shortest pair.
    private func steps(from seed: Int) -> (SIMD2<Double>, SIMD2<Double>)? {
        let c = candidates[seed]
        let pitch = c.area.squareRoot() / Self.patchFraction
        var u: SIMD2<Double>?, uLength = Double.infinity
        for other in candidates.indices where other != seed {
            let o = candidates[other]
            guard o.area > 0.5 * c.area && o.area < 2 * c.area else { continue }
            let d = o.center - c.center, length = (d * d).sum().squareRoot()
            if length > 0.7 * pitch && length < 1.6 * pitch && length < uLength { (u, uLength) = (d, length) }
        }
        guard let u else { return nil }
        var v: SIMD2<Double>?, vLength = Double.infinity
        for other in candidates.indices where other != seed {
            let o = candidates[other]
            guard o.area > 0.5 * c.area && o.area < 2 * c.area else { continue }
            let d = o.center - c.center, length = (d * d).sum().squareRoot()
            guard length > 0.7 * pitch && length < 1.6 * pitch && length < vLength else { continue }
            if abs(cross(u, d)) > 0.7 * uLength * length { (v, vLength) = (d, length) }
        }
        guard var v else { return nil }
        var a = u
        for _ in 0..<4 {
            if (v * v).sum() < (a * a).sum() { swap(&a, &v) }
            let m = ((a * v).sum() / (a * a).sum()).rounded()
            if m == 0 { break }
            v -= m * a
        }
        return (a, v)
    }

    /// Puts each candidate on the grid point of `map` it lies near (within `tolerance` of the
    /// local step, at most `radius` steps from the origin, of the local patch size); a point
    /// two candidates want goes to the nearer. Returns how many points are taken. The grid's
    /// first rings are found with a third of a step, while the map is only the seed's
    /// affine guess; once a homography is fitted, its patches sit within a few hundredths of
    /// a step of their points, and a fifth keeps out squares of clutter that happen to lie
    /// near the grid's extension.
    private func assign(map: Projective, radius: Int, tolerance: Double) -> Int {
        for slot in 0..<169 { slots[slot] = -1 }
        guard let inverse = map.inverse else { return 0 }
        let limit = Double(radius) + 0.5
        var taken = 0
        for index in candidates.indices {
            let c = candidates[index]
            let grid = inverse.map(c.center)
            guard abs(grid.x) < limit, abs(grid.y) < limit else { continue }
            let a = grid.x.rounded(), b = grid.y.rounded()
            let point = map.map(SIMD2(a, b))
            let du = map.map(SIMD2(a + 1, b)) - point, dv = map.map(SIMD2(a, b + 1)) - point
            let cell = abs(cross(du, dv))
            guard cell > 0 else { continue }
            let patch = cell * Self.patchFraction * Self.patchFraction
            guard c.area > 0.4 * patch && c.area < 1.7 * patch else { continue }
            let offset = c.center - point, distance = (offset * offset).sum()
            guard distance < cell * tolerance * tolerance else { continue }
            let slot = (Int(a) + 6) * 13 + Int(b) + 6
            if slots[slot] < 0 {
                taken += 1
            } else if slotDistance[slot] <= distance {
                continue
            }
            slots[slot] = Int32(index)
            slotDistance[slot] = distance
        }
        return taken
    }

    /// The map refitted to the candidates in `slots`: a homography with 6 or more, an affine
    /// map with 3 to 5; nil when they lie on a line.
    private func fit(map: Projective) -> Projective? {
        pointsFrom.removeAll(keepingCapacity: true)
        pointsTo.removeAll(keepingCapacity: true)
        for slot in 0..<169 where slots[slot] >= 0 {
            pointsFrom.append(SIMD2(Double(slot / 13 - 6), Double(slot % 13 - 6)))
            pointsTo.append(candidates[Int(slots[slot])].center)
        }
        return Projective.fit(from: pointsFrom, to: pointsTo, origin: map.origin, scale: map.scale, scratch: &normal)
    }
}
