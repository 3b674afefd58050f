import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CIE 1931 XYZ tristimulus values, scaled so that the white the colour is relative to has Y = 100.
public struct CIEXYZ: Hashable, Codable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The white of chromaticity (`x`, `y`) at Y = 100.
    public init(chromaticityX x: Double, y: Double) {
        self.init(x: 100 * x / y, y: 100, z: 100 * (1 - x - y) / y)
    }

    /// CIE D50 (x 0.3457, y 0.3585, 2 degree observer): the white of the ICC profile connection
    /// space and of the ColorChecker's published L*a*b*.
    public static let d50 = CIEXYZ(chromaticityX: 0.3457, y: 0.3585)
    /// CIE D65 (x 0.3127, y 0.3290): sRGB's white.
    public static let d65 = CIEXYZ(chromaticityX: 0.3127, y: 0.3290)

    var vector: SIMD3<Double> { SIMD3(x, y, z) }

    init(_ vector: SIMD3<Double>) {
        self.init(x: vector.x, y: vector.y, z: vector.z)
    }

    /// CIE 1976 L*a*b* relative to `white`.
    public func lab(white: CIEXYZ = .d50) -> CIELab {
        let fx = Self.labF(x / white.x), fy = Self.labF(y / white.y), fz = Self.labF(z / white.z)
        return CIELab(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// The XYZ of `lab`, relative to `white`: the inverse of `lab(white:)`.
    public init(_ lab: CIELab, white: CIEXYZ = .d50) {
        let fy = (lab.l + 16) / 116
        let fx = fy + lab.a / 500, fz = fy - lab.b / 200
        self.init(x: white.x * Self.labFInverse(fx), y: white.y * Self.labFInverse(fy), z: white.z * Self.labFInverse(fz))
    }

    /// δ = 6/29: below δ^3 the CIE f(t) is a straight line instead of the cube root.
    private static let delta = 6.0 / 29.0

    @inline(__always)
    private static func labF(_ t: Double) -> Double {
        t > delta * delta * delta ? cbrt(t) : t / (3 * delta * delta) + 4.0 / 29.0
    }

    @inline(__always)
    private static func labFInverse(_ f: Double) -> Double {
        f > delta ? f * f * f : 3 * delta * delta * (f - 4.0 / 29.0)
    }
}

/// A 3 x 3 matrix of rows, for the colour space changes.
struct Matrix3: Sendable {
    var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    init(_ r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        rows = (r0, r1, r2)
    }

    static func diagonal(_ d: SIMD3<Double>) -> Matrix3 {
        Matrix3(SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z))
    }

    @inline(__always)
    static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.rows.0 * v).sum(), (m.rows.1 * v).sum(), (m.rows.2 * v).sum())
    }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { SIMD3((r * bt.rows.0).sum(), (r * bt.rows.1).sum(), (r * bt.rows.2).sum()) }
        return Matrix3(row(a.rows.0), row(a.rows.1), row(a.rows.2))
    }

    var transposed: Matrix3 {
        let (a, b, c) = rows
        return Matrix3(SIMD3(a.x, b.x, c.x), SIMD3(a.y, b.y, c.y), SIMD3(a.z, b.z, c.z))
    }

    /// The inverse by cofactors; the matrices inverted here (primaries, cone responses) are far
    /// from singular.
    var inverse: Matrix3 {
        let (a, b, c) = rows
        let c0 = SIMD3(b.y * c.z - b.z * c.y, b.z * c.x - b.x * c.z, b.x * c.y - b.y * c.x)
        let c1 = SIMD3(a.z * c.y - a.y * c.z, a.x * c.z - a.z * c.x, a.y * c.x - a.x * c.y)
        let c2 = SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        let determinant = (a * c0).sum()
        // Columns of the adjugate are the cofactor rows above.
        return Matrix3(
            SIMD3(c0.x, c1.x, c2.x) / determinant, SIMD3(c0.y, c1.y, c2.y) / determinant,
            SIMD3(c0.z, c1.z, c2.z) / determinant)
    }
}

/// sRGB's primaries and D65 white, and the Bradford adaptation between D50 (where the profile
/// connection space and the chart's data live) and D65; its transfer function is the core's.
extension SRGB {
    /// Linear sRGB (0...1) to XYZ relative to D65 (Y = 100 for white), from the primaries
    /// R (0.64, 0.33), G (0.30, 0.60), B (0.15, 0.06) and the white.
    static let toXYZD65: Matrix3 = {
        let primaries = Matrix3(
            CIEXYZ(chromaticityX: 0.64, y: 0.33).vector, CIEXYZ(chromaticityX: 0.30, y: 0.60).vector,
            CIEXYZ(chromaticityX: 0.15, y: 0.06).vector
        ).transposed
        // Scale each primary so that R = G = B = 1 gives the white.
        let scale = primaries.inverse * CIEXYZ.d65.vector
        return primaries * Matrix3.diagonal(scale)
    }()

    /// XYZ (D65) to linear sRGB.
    static let fromXYZD65 = toXYZD65.inverse

    /// The Bradford cone response matrix (Lam 1985).
    static let bradfordCones = Matrix3(
        SIMD3(0.8951, 0.2664, -0.1614), SIMD3(-0.7502, 1.7135, 0.0367), SIMD3(0.0389, -0.0685, 1.0296))

    static let bradfordConesInverse = bradfordCones.inverse

    /// Bradford chromatic adaptation from the white `source` to the white `destination`.
    static func bradford(from source: CIEXYZ, to destination: CIEXYZ) -> Matrix3 {
        bradford(gains: (bradfordCones * destination.vector) / (bradfordCones * source.vector))
    }

    /// The Bradford adaptation that scales the cone responses by `gains`.
    static func bradford(gains: SIMD3<Double>) -> Matrix3 {
        bradfordConesInverse * Matrix3.diagonal(gains) * bradfordCones
    }

    /// XYZ relative to D50 to linear sRGB, adapting D50 to D65 with Bradford.
    static let fromXYZD50 = fromXYZD65 * bradford(from: .d50, to: .d65)
    /// Linear sRGB to XYZ relative to D50.
    static let toXYZD50 = bradford(from: .d65, to: .d50) * toXYZD65

    /// The XYZ (D50, white Y = 100) of an sRGB colour, e.g. a `--target '#rrggbb'`.
    public static func xyzD50(_ color: RGB8) -> CIEXYZ {
        xyzD50(encoded: SIMD3(Double(color.r), Double(color.g), Double(color.b)) / 255)
    }

    /// The XYZ (D50, white Y = 100) of encoded (not linear) sRGB values in 0...1, which need not
    /// be multiples of 1/255: a palette's `"srgb":[r,g,b]` over 255. For whole values it gives
    /// exactly what the `RGB8` form gives.
    public static func xyzD50(encoded rgb: SIMD3<Double>) -> CIEXYZ {
        CIEXYZ(toXYZD50 * SIMD3(decode(rgb.x), decode(rgb.y), decode(rgb.z)))
    }
}
