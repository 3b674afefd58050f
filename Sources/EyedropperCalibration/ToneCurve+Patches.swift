#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ToneCurve {
    /// One shape for the three channels, each scaled, through what every patch's channel should
    /// read linear: ln linear_c(z) = g(z) + a_c, g piecewise linear between knots spaced as
    /// `ResponseRecovery.spacing` spaces them and smooth by its second differences, found with the
    /// a_c by weighted least squares, each point reweighted by what its level can say of the light
    /// (`ResponseRecovery.informationWeights`). A camera applies one curve after its white balance,
    /// and the chart's colour patches read, in some channel, levels between and below the
    /// neutrals': 24 x 3 points on one shape instead of 6 on each of three.
    ///
    /// `points`: (camera value 0...1, channel, linear value, weight). A point with no linear value
    /// above 0, or outside `ResponseRecovery.usableLevels`, says nothing and is left out. Nil when
    /// what is left cannot pin a shape: fewer than `sharedKnots` points, a channel without one, or a
    /// range of camera values too narrow to place the knots.
    static func shared(_ points: [(z: Double, channel: Int, linear: Double, weight: Double)]) -> ToneCurve? {
        let rows = points.filter { $0.linear > 0 && $0.weight > 0 && ResponseRecovery.usableLevels.contains($0.z * 255) }
        let n = Self.sharedKnots
        guard rows.count >= n, Set(rows.map(\.channel)).count == 3,
            let (knots, intervals) = ResponseRecovery.knots(n, over: rows.map(\.z))
        else { return nil }
        // Unknowns: g at the knots, then a_c. g is 0 at its top knot.
        let unknowns = n + 3
        var fixed = [Double](repeating: 0, count: unknowns * unknowns)
        func add(_ terms: [(Int, Double)], weight: Double, to normal: inout [Double]) {
            for (i, a) in terms { for (j, b) in terms { normal[i * unknowns + j] += weight * a * b } }
        }
        add([(n - 1, 1)], weight: 1, to: &fixed)
        let smoothness = Self.sharedSmoothness * rows.reduce(0) { $0 + $1.weight } / Double(n)
        for i in 1..<n - 1 { add([(i - 1, 1), (i, -2), (i + 1, 1)], weight: smoothness, to: &fixed) }
        var information = [Double](repeating: 1, count: rows.count)
        var solution: [Double] = []
        for _ in 0..<ResponseRecovery.rounds {
            var normal = fixed
            var right = [Double](repeating: 0, count: unknowns)
            for (r, row) in rows.enumerated() {
                let (i, t) = intervals[r]
                let terms = [(i, 1 - t), (i + 1, t), (n + row.channel, 1.0)]
                let weight = row.weight * information[r]
                add(terms, weight: weight, to: &normal)
                for (j, a) in terms { right[j] += weight * a * log(row.linear) }
            }
            guard let next = LeastSquares.solve(normal, right) else { return nil }
            solution = next
            information = ResponseRecovery.informationWeights(
                rows.indices.map { r in
                    let i = intervals[r].i
                    return (solution[i + 1] - solution[i]) / (knots[i + 1] - knots[i]) * ResponseRecovery.spacingSlope(rows[r].z)
                })
        }
        let g = ResponseRecovery.rising(Array(solution[..<n]))
        let cameraValues = knots.map(ResponseRecovery.inverseSpacing)
        var channels: [Channel] = []
        for c in 0..<3 {
            guard let channel = try? Channel(points: (0..<n).map { [cameraValues[$0], exp(g[$0] + solution[n + c])] }) else {
                return nil
            }
            channels.append(channel)
        }
        return ToneCurve(red: channels[0], green: channels[1], blue: channels[2])
    }

    /// Knots of the shared shape: one a patch, so that the chart's 72 points, a few of them left
    /// out, pin it with the smoothness's help.
    static let sharedKnots = 24
    /// Weight of the second differences of g, per unit of the points' weight and knot: as
    /// `ResponseRecovery.smoothness` carries a measured curve across a gap between levels.
    static let sharedSmoothness = 0.01
}
