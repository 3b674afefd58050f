internal import CEyedropperJPEGKernels
import Eyedropper

/// The 16-bit fixed-point map from a frame's Y'CbCr to JPEG's (BT.601, full range), in the Y'CbCr
/// domain: no R'G'B' in between, so 4:2:0 chroma stays 4:2:0.
///
/// In normalised units (Y in 0...1, C in -0.5...0.5) the map is M = A601 * inverse(A_src), A the
/// R'G'B' -> Y'CbCr matrix of each standard. Both send grey to (Y, 0, 0), so M's first column is
/// (1, 0, 0): Y' takes Y plus a little of the block's chroma, and Cb', Cr' take chroma alone.
/// With R = Y + 2(1 - Kr) Cr, B = Y + 2(1 - Kb) Cb, G = (Y - Kr R - Kb B) / Kg of the source
/// (Kg = 1 - Kr - Kb) and kr, kb, kg BT.601's weights:
///
///     Y6  = Y + a Cb + b Cr,    a = 2(1 - Kb)(kb - kg Kb / Kg),  b = 2(1 - Kr)(kr - kg Kr / Kg)
///     Cb6 = (B - Y6) / 2(1 - kb) = ((2(1 - Kb) - a) Cb - b Cr) / 2(1 - kb)
///     Cr6 = (R - Y6) / 2(1 - kr) = ((2(1 - Kr) - b) Cr - a Cb) / 2(1 - kr)
///
/// In 8-bit code values, with the source's Y = (Ysrc - yOffset) / yScale, C = (Csrc - 128) / cScale
/// (16, 219, 224 limited; 0, 255, 255 full) and JPEG's Y' = 255 Y6, C' = 255 C6 + 128, every
/// chroma coefficient gains 255 / cScale and the luma gain is 255 / yScale. Terms are kept in
/// 1/64 levels (6 fractional bits: the largest sum, BT.709 limited white with its chroma, is
/// 19002 + 3700, inside Int16; 7 bits would overflow).
///
///     colorimetry     y      cbToY  crToY  yBias  cbToCb crToCb cbToCr crToCr
///     bt601 limited   19003     0      0   -1128   9326      0      0   9326
///     bt601 full      16320     0      0      64   8192      0      0   8192
///     bt709 limited   19003   947   1829   -1128   9231  -1032   -676   9171
///     bt709 full      16320   832   1606      64   8109   -906   -594   8056
///     bt2020 limited  19003  1099    984   -1128   9281   -555   -784   9107
///     bt2020 full     16320   966    864      64   8153   -488   -689   8000
///
/// Every output of every colorimetry is within one level of the exact map (JPEGPlaneTests checks
/// all 2^24 inputs and prints the histogram: about 99.3% exact; BT.601 full is exact).
struct JPEGRemapCoefficients: Hashable, Sendable {
    /// Multiplier of `Y * 257` (pmulhuw): round(lumaGain * 64 * 65536 / 257), lumaGain = 255/219
    /// limited (16319.75 * 1.164384 = 19002.5 -> 19003), 1 full (16320; Y * 257 * 16320 >> 16 is
    /// 64 Y - 1 for Y > 0, which `yBias` makes up).
    let y: UInt16
    /// Cb -> Y': round(a * 255 / cScale * 64 * 128). `mulhrs((C - 128) << 8, k)` is
    /// (C - 128) * k / 128 rounded: 64ths of a level when k carries the coefficient times 8192.
    let cbToY: Int16
    /// Cr -> Y': round(b * 255 / cScale * 8192).
    let crToY: Int16
    /// round(-yOffset * lumaGain * 64) + 32: the luma offset (-16 * 255/219 * 64 = -1192.3 limited,
    /// 0 full) and half a level, so that `>> 6` rounds to nearest. For full range the + 32 also
    /// makes up the 1/64 that `y`'s 16320 loses.
    let yBias: Int16
    /// Cb -> Cb': round((2(1 - Kb) - a) / 2(1 - kb) * 255 / cScale * 8192) (identity: 8192).
    let cbToCb: Int16
    /// Cr -> Cb': round(-b / 2(1 - kb) * 255 / cScale * 8192).
    let crToCb: Int16
    /// Cb -> Cr': round(-a / 2(1 - kr) * 255 / cScale * 8192).
    let cbToCr: Int16
    /// Cr -> Cr': round((2(1 - Kr) - b) / 2(1 - kr) * 255 / cScale * 8192).
    let crToCr: Int16

    init(_ source: Colorimetry) {
        let jpeg = YCbCrMatrix.bt601
        let (kr, kb) = (source.matrix.kr, source.matrix.kb), kg = 1 - kr - kb
        let (jr, jb) = (jpeg.kr, jpeg.kb), jg = 1 - jr - jb
        let a = 2 * (1 - kb) * (jb - jg * kb / kg)
        let b = 2 * (1 - kr) * (jr - jg * kr / kg)
        let (yOffset, yScale, cScale) = source.codeScales
        let lumaGain = 255 / yScale, chromaGain = 255 / cScale * 8192
        func int16(_ value: Double) -> Int16 { Int16(value.rounded()) }
        // A BT.601 source has a = b = 0 (to rounding): its map is its range's alone.
        y = UInt16((lumaGain * 64 * 65536 / 257).rounded())
        cbToY = int16(a * chromaGain)
        crToY = int16(b * chromaGain)
        yBias = Int16((-yOffset * lumaGain * 64).rounded()) + 32
        cbToCb = int16((2 * (1 - kb) - a) / (2 * (1 - jb)) * chromaGain)
        crToCb = int16(-b / (2 * (1 - jb)) * chromaGain)
        cbToCr = int16(-a / (2 * (1 - jr)) * chromaGain)
        crToCr = int16((2 * (1 - kr) - b) / (2 * (1 - jr)) * chromaGain)
    }

    /// The table the C kernels read.
    var c: ed_jpeg_coefficients {
        ed_jpeg_coefficients(
            y: y, cbToY: cbToY, crToY: crToY, yBias: yBias, cbToCb: cbToCb, crToCb: crToCb, cbToCr: cbToCr,
            crToCr: crToCr)
    }
}
