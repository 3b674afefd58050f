import Eyedropper

/// A colour in device-independent terms: what a camera profile makes of a patch's mean.
public struct CalibratedColor: Hashable, Sendable {
    /// Relative to D50, Y = 100 for the perfect white.
    public let xyz: CIEXYZ
    /// CIE L*a*b* relative to D50.
    public let lab: CIELab
    /// sRGB (Bradford from D50 to D65), each 0...255 unrounded; clamped to that range when the
    /// colour lies outside sRGB's gamut.
    public let srgb: SIMD3<Double>
    /// Whether the colour lies inside sRGB's gamut (each linear value in 0...1, within 10^-6).
    public let inGamut: Bool

    /// The colour of `xyz` (D50).
    public init(xyz: CIEXYZ) {
        self.xyz = xyz
        lab = xyz.lab(white: .d50)
        var linear = SRGB.fromXYZD50 * xyz.vector
        let tolerance = 1e-6
        inGamut = all(linear .>= -tolerance) && all(linear .<= 1 + tolerance)
        linear.clamp(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
        srgb = SIMD3(SRGB.encode(linear.x), SRGB.encode(linear.y), SRGB.encode(linear.z)) * 255
    }

    /// The sRGB colour rounded to levels, as `#rrggbb` shows it.
    public var srgb8: RGB8 {
        let rounded = (srgb + 0.5).rounded(.down)
        return RGB8(r: UInt8(rounded.x), g: UInt8(rounded.y), b: UInt8(rounded.z))
    }
}
