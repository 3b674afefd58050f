import Eyedropper
import Testing

@Suite struct ColorimetryTests {
    @Test func coefficientTablesMatchTheirDerivation() {
        // The numbers the C kernels were verified with (see CEyedropperKernels.h).
        let bt601Limited = FixedPointCoefficients(.bt601Limited)
        #expect(
            [
                Int(bt601Limited.y), Int(bt601Limited.crToR), Int(bt601Limited.cbToB),
                Int(bt601Limited.cbToG), Int(bt601Limited.crToG), Int(bt601Limited.bias),
            ]
                == [9502, 13075, 16525, -3209, -6660, -580])
        let bt709Full = FixedPointCoefficients(.bt709Full)
        #expect(
            [
                Int(bt709Full.y), Int(bt709Full.crToR), Int(bt709Full.cbToB),
                Int(bt709Full.cbToG), Int(bt709Full.crToG), Int(bt709Full.bias),
            ]
                == [8160, 12901, 15201, -1535, -3835, 17])
    }

    @Test func exactFormulaGivesTheTextbookBars() {
        // 75% yellow (191, 191, 0) in BT.601 limited range is Y 161.34, Cb 44.11, Cr 141.64; the
        // nearest code values decode to (191.18, 190.36, -0.61): 8-bit code values lose up to a level.
        #expect(Colorimetry.bt601Limited.ycbcr(RGB8(r: 191, g: 191, b: 0)) == YCbCr8(y: 161, cb: 44, cr: 142))
        #expect(Colorimetry.bt601Limited.exactRGB(YCbCr8(y: 161, cb: 44, cr: 142)) == RGB8(r: 191, g: 190, b: 0))
        // Black and white at the range limits.
        #expect(Colorimetry.bt709Limited.exactRGB(YCbCr8(y: 16, cb: 128, cr: 128)) == RGB8(r: 0, g: 0, b: 0))
        #expect(Colorimetry.bt709Limited.exactRGB(YCbCr8(y: 235, cb: 128, cr: 128)) == RGB8(r: 255, g: 255, b: 255))
        #expect(Colorimetry.bt601Full.exactRGB(YCbCr8(y: 255, cb: 128, cr: 128)) == RGB8(r: 255, g: 255, b: 255))
    }

    @Test func hexIsLowerCaseWithHash() {
        #expect(RGB8(r: 191, g: 10, b: 0).hex == "#bf0a00")
    }
}
