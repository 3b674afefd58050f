#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hue, saturation and value in the hexcone model.
public struct HSV: Hashable, Codable, Sendable {
    /// Degrees in 0..<360; 0 for greys, where hue is undefined.
    public var hue: Double
    /// 0...1; 0 for greys and black.
    public var saturation: Double
    /// 0...1.
    public var value: Double

    public init(hue: Double, saturation: Double, value: Double) {
        self.hue = hue
        self.saturation = saturation
        self.value = value
    }
}

/// CIE 1976 L*a*b*: L* in 0...100, a* and b* unbounded.
public struct CIELab: Hashable, Codable, Sendable {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }
}

extension RGB8 {
    /// The hexcone model on r/255, g/255, b/255.
    ///
    /// Computed from integer channel differences: the ratios are the same as on the scaled
    /// values, and primaries and secondaries come out as exact multiples of 60 degrees.
    public var hsv: HSV {
        let r = Int(self.r), g = Int(self.g), b = Int(self.b)
        let high = max(r, g, b)
        let delta = high - min(r, g, b)
        let value = Double(high) / 255
        guard delta > 0 else { return HSV(hue: 0, saturation: 0, value: value) }
        let sector: Double
        if high == r {
            sector = Double(g - b) / Double(delta)
        } else if high == g {
            sector = Double(b - r) / Double(delta) + 2
        } else {
            sector = Double(r - g) / Double(delta) + 4
        }
        let hue = sector < 0 ? sector * 60 + 360 : sector * 60
        return HSV(hue: hue, saturation: Double(delta) / Double(high), value: value)
    }

    /// CIE L*a*b* relative to D65 (Xn 0.95047, Yn 1, Zn 1.08883).
    ///
    /// D65 because it is sRGB's own white point: no chromatic adaptation is applied, so sRGB white
    /// maps to L* 100, a* = b* = 0. Values differ from D50 (ICC profile connection space) Lab.
    public var lab: CIELab {
        let table = Self.linearTable
        let r = table[Int(self.r)], g = table[Int(self.g)], b = table[Int(self.b)]
        let x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
        let fx = Self.labF(x / 0.95047)
        let fy = Self.labF(y)
        let fz = Self.labF(z / 1.08883)
        return CIELab(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// The IEC 61966-2-1 decoding of every code value, so `lab` needs no `pow` per call.
    private static let linearTable: [Double] = (0...255).map { SRGB.decode(Double($0) / 255) }

    /// The CIE f(t): a cube root, with a linear segment near black where the cube root is too steep.
    @inline(__always)
    private static func labF(_ t: Double) -> Double {
        let delta = 6.0 / 29.0
        return t > delta * delta * delta ? cbrt(t) : t / (3 * delta * delta) + 4.0 / 29.0
    }
}
