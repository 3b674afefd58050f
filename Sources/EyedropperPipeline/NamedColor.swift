import Eyedropper
import EyedropperCalibration

/// `--palette` and `--max-delta-e`: the names each sample is given.
public struct PaletteSettings: Sendable {
    public let palette: Palette
    /// Past this CIEDE2000 from the nearest entry a sample is named `unknown`; nil: never.
    public let maxDeltaE: Double?

    public init(palette: Palette, maxDeltaE: Double? = nil) {
        self.palette = palette
        self.maxDeltaE = maxDeltaE
    }

    /// The name of a colour: `lab` (D50) is a sample's calibrated colour, or without a profile
    /// (`calibrated` false) its camera colour read as sRGB.
    @inline(__always)
    public func name(_ lab: CIELab, calibrated: Bool) -> NamedColor {
        let match = palette.match(SIMD3(lab.l, lab.a, lab.b))
        let known = maxDeltaE.map { match.deltaE <= $0 } ?? true
        return NamedColor(match: match, known: known, calibrated: calibrated, maxDeltaE: maxDeltaE)
    }

    /// The CIELAB (D50) of a camera colour (mean, 0...255 unrounded) read as sRGB: what a sample
    /// is named by without a profile, so a pixel of exactly `#ff0000` is a palette's `"#ff0000"`.
    @inline(__always)
    public static func cameraLab(_ mean: (r: Double, g: Double, b: Double)) -> CIELab {
        SRGB.xyzD50(encoded: SIMD3(mean.r, mean.g, mean.b) / 255).lab(white: .d50)
    }
}

/// A sample's name from a palette, and how sure it is.
public struct NamedColor: Hashable, Sendable {
    /// The nearest entry and the nearest of another colour.
    public let match: PaletteMatch
    /// Within `--max-delta-e` of the nearest entry (always without one): named by it; else `unknown`.
    public let known: Bool
    /// Named by the calibrated colour (with a profile), or by the camera's read as sRGB.
    public let calibrated: Bool
    let maxDeltaE: Double?

    /// The entry it is named by; nil: `unknown`.
    public var entry: Int32? { known ? match.entry : nil }
    /// The answer it would change to: the next colour's entry when named, the nearest entry when
    /// `unknown`; nil when the palette holds one colour.
    public var next: Int32? {
        if !known { return match.entry }
        return match.next >= 0 ? match.next : nil
    }
    /// How far from the answer changing, in CIEDE2000: when named, the next colour's ΔE minus the
    /// nearest's; when `unknown`, the nearest's ΔE minus `--max-delta-e`. nil with no next colour.
    public var margin: Double? {
        let margin =
            if !known, let maxDeltaE { match.deltaE - maxDeltaE } else { match.next >= 0 ? match.nextDeltaE - match.deltaE : .nan }
        return margin.isFinite ? margin : nil
    }

    /// `"name"` of an entry, `"unknown"`, for JSON and the like.
    public static let unknownName = "unknown"
}

extension PaletteSettings: Hashable {
    /// Equal when they name alike: the same entries, in order, and the same limit.
    public static func == (lhs: PaletteSettings, rhs: PaletteSettings) -> Bool {
        lhs.maxDeltaE == rhs.maxDeltaE && lhs.palette.entries == rhs.palette.entries
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(maxDeltaE)
        hasher.combine(palette.entries)
    }
}
