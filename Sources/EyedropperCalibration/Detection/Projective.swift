/// A projective map of the plane as a 3x3 matrix (rows), fitted in coordinates normalised
/// about `origin` by `scale` so that pixels and grid steps are of one size in the solve.
struct Projective {
    var m: Matrix3
    /// The normalisation of the output the fits use: (pixel - origin) / scale.
    let origin: SIMD2<Double>
    let scale: Double

    init(m: Matrix3, origin: SIMD2<Double>, scale: Double) {
        self.m = m
        self.origin = origin
        self.scale = scale
    }

    /// The affine map taking grid point (a, b) to `origin` + a `u` + b `v`.
    init?(origin: SIMD2<Double>, u: SIMD2<Double>, v: SIMD2<Double>) {
        let scale = (u * u).sum().squareRoot()
        guard scale > 0 else { return nil }
        self.init(
            m: Matrix3(SIMD3(u.x, v.x, origin.x), SIMD3(u.y, v.y, origin.y), SIMD3(0, 0, 1)), origin: origin, scale: scale)
    }

    @inline(__always) func map(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let q = m * SIMD3(p.x, p.y, 1)
        return SIMD2(q.x, q.y) / q.z
    }

    var inverse: Projective? { m.regularInverse.map { Projective(m: $0, origin: origin, scale: scale) } }

    /// This map after the chart's columns and rows are put on the grid by `placement`.
    func composed(_ placement: ChartDetector.Placement) -> Projective {
        let c = SIMD2<Double>(placement.column), r = SIMD2<Double>(placement.row), o = SIMD2<Double>(placement.origin)
        let a = Matrix3(SIMD3(c.x, r.x, o.x), SIMD3(c.y, r.y, o.y), SIMD3(0, 0, 1))
        return Projective(m: m * a, origin: origin, scale: scale)
    }

    /// The least-squares map from `from` to `to` (a homography with 6 or more pairs, an affine
    /// map with 3 to 5), output normalised about `origin` by `scale`; nil when the points lie
    /// on a line. `scratch` holds at least 72 values.
    static func fit(
        from: [SIMD2<Double>], to: [SIMD2<Double>], origin: SIMD2<Double>, scale: Double, scratch: inout [Double]
    ) -> Projective? {
        let count = from.count
        guard count >= 3 else { return nil }
        let unknowns = count >= 6 ? 8 : 6
        let columns = unknowns + 1
        for i in 0..<(unknowns * columns) { scratch[i] = 0 }
        for k in 0..<count {
            let x = from[k].x, y = from[k].y
            let u = (to[k].x - origin.x) / scale, v = (to[k].y - origin.y) / scale
            // The two equations of the pair, h33 = 1: [x y 1 0 0 0 -ux -uy] h = u, and for v.
            for equation in 0..<2 {
                var row = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
                let target = equation == 0 ? u : v
                if equation == 0 {
                    row.0 = x
                    row.1 = y
                    row.2 = 1
                } else {
                    row.3 = x
                    row.4 = y
                    row.5 = 1
                }
                row.6 = -target * x
                row.7 = -target * y
                withUnsafeBytes(of: row) { raw in
                    let r = raw.assumingMemoryBound(to: Double.self)
                    for i in 0..<unknowns {
                        let ri = r[i]
                        if ri == 0 { continue }
                        for j in 0..<unknowns { scratch[i * columns + j] += ri * r[j] }
                        scratch[i * columns + unknowns] += ri * target
                    }
                }
            }
        }
        // Gaussian elimination with partial pivoting.
        for c in 0..<unknowns {
            var pivot = c
            for r in (c + 1)..<unknowns where abs(scratch[r * columns + c]) > abs(scratch[pivot * columns + c]) { pivot = r }
            guard abs(scratch[pivot * columns + c]) > 1e-12 else { return nil }
            if pivot != c {
                for j in 0..<columns { scratch.swapAt(c * columns + j, pivot * columns + j) }
            }
            let diagonal = scratch[c * columns + c]
            for r in 0..<unknowns where r != c {
                let factor = scratch[r * columns + c] / diagonal
                if factor == 0 { continue }
                for j in c..<columns { scratch[r * columns + j] -= factor * scratch[c * columns + j] }
            }
        }
        var h = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &h) { raw in
            let out = raw.assumingMemoryBound(to: Double.self)
            for i in 0..<unknowns { out[i] = scratch[i * columns + unknowns] / scratch[i * columns + i] }
        }
        let normalised = Matrix3(SIMD3(h.0, h.1, h.2), SIMD3(h.3, h.4, h.5), SIMD3(h.6, h.7, 1))
        let back = Matrix3(SIMD3(scale, 0, origin.x), SIMD3(0, scale, origin.y), SIMD3(0, 0, 1))
        return Projective(m: back * normalised, origin: origin, scale: scale)
    }
}

extension Matrix3 {
    static let zero = Matrix3(.zero, .zero, .zero)

    /// Adds the outer product y xᵀ.
    mutating func addOuter(_ y: SIMD3<Double>, _ x: SIMD3<Double>) {
        rows.0 += y.x * x
        rows.1 += y.y * x
        rows.2 += y.z * x
    }

    /// The inverse; nil when the matrix is singular for its size.
    var regularInverse: Matrix3? {
        let (a, b, c) = rows
        let determinant = (a * SIMD3(b.y * c.z - b.z * c.y, b.z * c.x - b.x * c.z, b.x * c.y - b.y * c.x)).sum()
        let size = max((a * a).sum(), (b * b).sum(), (c * c).sum())
        guard determinant.isFinite, abs(determinant) > 1e-14 * size * size.squareRoot() else { return nil }
        return inverse
    }
}

/// The z of the cross product of two plane vectors: twice the signed area they span.
@inline(__always) func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { a.x * b.y - a.y * b.x }
