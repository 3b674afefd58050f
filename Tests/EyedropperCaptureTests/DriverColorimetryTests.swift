import Eyedropper
import EyedropperCapture
import Testing

/// V4L2 enum values as videodev2.h defines them (literal, so the test does not share the code's
/// constants): colorspaces SMPTE170M 1, REC709 3, JPEG 7, SRGB 8, BT2020 10, DCI_P3 12;
/// ycbcr_enc DEFAULT 0, 601 1, 709 2, BT2020 6; quantization DEFAULT 0, FULL 1, LIM 2.
@Suite struct DriverColorimetryTests {
    private func colorimetry(_ colorspace: UInt32, _ encoding: UInt32, _ quantization: UInt32) -> Colorimetry {
        DriverColorimetry(colorspace: colorspace, ycbcrEncoding: encoding, quantization: quantization).colorimetry
    }

    @Test func explicitFieldsWin() {
        #expect(colorimetry(8, 2, 2) == .bt709Limited)
        #expect(colorimetry(3, 1, 1) == .bt601Full)
        #expect(colorimetry(10, 6, 2) == Colorimetry(matrix: .bt2020, range: .limited))
    }

    @Test func defaultsFollowTheKernelRules() {
        // vivid's default: sRGB, default encoding and quantization -> BT.601 limited.
        #expect(colorimetry(8, 0, 0) == .bt601Limited)
        #expect(colorimetry(1, 0, 0) == .bt601Limited)
        #expect(colorimetry(3, 0, 0) == .bt709Limited)
        #expect(colorimetry(12, 0, 0) == .bt709Limited)
        #expect(colorimetry(10, 0, 0) == Colorimetry(matrix: .bt2020, range: .limited))
        // JPEG colorspace: full range by default.
        #expect(colorimetry(7, 0, 0) == .bt601Full)
    }
}
