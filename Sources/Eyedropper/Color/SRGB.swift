#if canImport(Glibc)
    import Glibc
#endif

/// sRGB (IEC 61966-2-1). Here its transfer function, which an RGB colour's L*a*b* needs; the
/// calibration library adds its primaries and the adaptation between D50 and D65.
public enum SRGB {
    /// The sRGB encoding of a linear value in 0...1.
    @inline(__always)
    public static func encode(_ linear: Double) -> Double {
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }

    /// The linear value of an sRGB-encoded value in 0...1.
    @inline(__always)
    public static func decode(_ encoded: Double) -> Double {
        encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
    }
}
