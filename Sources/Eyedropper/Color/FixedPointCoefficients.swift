import CEyedropperKernels

/// The 16-bit fixed-point form of a `Colorimetry`, shared by every row kernel.
///
/// All terms are in units of 1/32 of an output level, so a channel is `(luma + chroma + bias) >> 5`
/// saturated to 0...255. With every coefficient carrying 13 or more fractional bits, every output of
/// every matrix and range is within one level of `Colorimetry.exactRGB` (ExactnessTests checks all
/// 2^24 inputs and prints the histogram).
///
/// Per pixel, with `mulhi(a, b) = (a * b) >> 16` (floor, as `pmulhw` / `pmulhuw` compute it):
///
///     luma  = mulhi_unsigned(Y * 257, y)               // 0...9502
///     u     = (Cb - 128) << 8,  v = (Cr - 128) << 8     // -32768...32512, fit Int16
///     R     = (luma + mulhi(v, crToR) + bias) >> 5
///     G     = (luma + mulhi(u, cbToG) + mulhi(v, crToG) + bias) >> 5
///     B     = (luma + mulhi(u, cbToB) + bias) >> 5
///
/// No Int16 sum overflows: the largest is 9502 + 8773 (BT.2020 limited, Cb -> B) and the smallest
/// -580 - 8773; ExactnessTests would see a wrapped sum as an error of hundreds of levels.
public struct FixedPointCoefficients: Hashable, Sendable {
    /// Luma multiplier for `Y * 257` (unsigned, so `Y * 257` spans 0...65535): round(lumaGain * 32 *
    /// 65536 / 257), lumaGain = 255/219 limited (8160.12 * 1.16438 = 9501.5 -> 9502), 1 full (8160).
    public let y: UInt16
    /// Cr -> R: round(2(1 - Kr) * cScale * 32 * 256), cScale = 255/224 limited, 1 full.
    public let crToR: Int16
    /// Cb -> B: round(2(1 - Kb) * cScale * 32 * 256).
    public let cbToB: Int16
    /// Cb -> G: round(-2(1 - Kb) Kb / Kg * cScale * 32 * 256), Kg = 1 - Kr - Kb.
    public let cbToG: Int16
    /// Cr -> G: round(-2(1 - Kr) Kr / Kg * cScale * 32 * 256).
    public let crToG: Int16
    /// floor(16 + lumaOffset + 1): half a level (16/32) for round-to-nearest, the luma offset
    /// (-16 * 255/219 * 32 = -596.2 limited, 0 full), and +1 for the two `mulhi` floors, which drop
    /// half a unit each on average. Of its two integer neighbours, floor puts the most outputs on the
    /// exact value (BT.601 limited: 99.2% exact against 98.6% for the other).
    public let bias: Int16

    public init(_ colorimetry: Colorimetry) {
        let kr = colorimetry.matrix.kr, kb = colorimetry.matrix.kb, kg = 1 - kr - kb
        let (yOffset, yScale, cScale) = colorimetry.codeScales
        let lumaGain = 255 / yScale
        let chromaGain = 255 / cScale * 32 * 256
        func int16(_ value: Double) -> Int16 { Int16(value.rounded()) }
        y = UInt16((lumaGain * 32 * 65536 / 257).rounded())
        crToR = int16(2 * (1 - kr) * chromaGain)
        cbToB = int16(2 * (1 - kb) * chromaGain)
        cbToG = int16(-2 * (1 - kb) * kb / kg * chromaGain)
        crToG = int16(-2 * (1 - kr) * kr / kg * chromaGain)
        bias = Int16((16 - yOffset * lumaGain * 32 + 1).rounded(.down))
    }

    /// One pixel, exactly as every row kernel computes it (in 32-bit integers: no sum overflows
    /// Int16 either, so the vector kernels' 16-bit wrapping arithmetic gives the same results).
    @inline(__always)
    public func convert(_ sample: YCbCr8) -> RGB8 {
        convert(luma: sample.y, chroma: chroma(cb: sample.cb, cr: sample.cr))
    }

    /// The chroma terms of `convert` with the bias, which the pixels sharing a Cb, Cr pair share
    /// (the direct sampling path computes them once for both pixels of a row).
    @inline(__always)
    func chroma(cb: UInt8, cr: UInt8) -> ChromaTerms {
        let u = (Int32(cb) - 128) &<< 8
        let v = (Int32(cr) - 128) &<< 8
        let bias = Int32(self.bias)
        return ChromaTerms(
            r: ((v &* Int32(crToR)) &>> 16) + bias,
            g: ((u &* Int32(cbToG)) &>> 16) + ((v &* Int32(crToG)) &>> 16) + bias,
            b: ((u &* Int32(cbToB)) &>> 16) + bias)
    }

    /// One pixel from its luma and its chroma terms: `convert`'s result, bit for bit.
    @inline(__always)
    func convert(luma y: UInt8, chroma: ChromaTerms) -> RGB8 {
        let luma = Int32((UInt32(y) &* 257 &* UInt32(self.y)) &>> 16)
        return RGB8(r: Self.level(luma + chroma.r), g: Self.level(luma + chroma.g), b: Self.level(luma + chroma.b))
    }

    /// A Cb, Cr pair's contribution to R, G and B, in 1/32 levels, the bias included.
    struct ChromaTerms {
        let r: Int32, g: Int32, b: Int32
    }

    /// `sum >> 5` clamped to 0...255 with sign masks: UInt8(clamping:) and min/max both compiled
    /// to branches, which random content mispredicts.
    @inline(__always)
    static func level(_ sum: Int32) -> UInt8 {
        let level = sum &>> 5
        let nonNegative = level & ~(level &>> 31)  // 0 below 0
        return UInt8(truncatingIfNeeded: nonNegative | ((255 &- nonNegative) &>> 31))  // all ones above 255
    }

    /// The table the C kernels read.
    var c: ed_coefficients {
        ed_coefficients(y: y, crToR: crToR, cbToB: cbToB, cbToG: cbToG, crToG: crToG, bias: bias)
    }
}
