import Eyedropper
import EyedropperJPEG
import Foundation
import Testing

@Suite struct JPEGEncoderTests {
    /// The test pattern through JPEGEncoder and back through libturbojpeg's decoder: the same
    /// size, and within JPEG's own loss of the exact RGB (PSNR over every channel of every pixel,
    /// bars, ramp and sweep): at least 40 dB with full chroma at quality 95, at least 30 dB with
    /// 4:2:0 at 90. A wrong stride, channel order or size would fall far below.
    @Test(arguments: [(ChromaSubsampling.s444, 95, 40.0), (.s420, 90, 30.0)])
    func roundTripKeepsThePicture(subsampling: ChromaSubsampling, quality: Int, minimumPSNR: Double) throws {
        let pattern = try TestPattern(width: 640, height: 480)
        let buffer = try pattern.makeFrameBuffer()
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        try buffer.withFrame { frame in
            try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: pattern.colorimetry).convert(frame, to: .rgb24, into: $0) }
        }
        let encoder = try JPEGEncoder(quality: quality, subsampling: subsampling)
        let jpeg = try rgb.withUnsafeBytes { image in
            try encoder.withJPEG(rgb24: image, width: 640, height: 480) { Array($0) }
        }
        let decoded = try JPEGDecoder.decode(jpeg)
        #expect(decoded.width == 640 && decoded.height == 480)
        let squaredError = zip(rgb, decoded.pixels).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        let psnr = 10 * log10(255 * 255 / (squaredError / Double(rgb.count)))
        #expect(psnr >= minimumPSNR, "\(subsampling.rawValue) at quality \(quality): PSNR \(psnr) dB")
    }

    @Test func encoderRefusesAnImageThatDoesNotFit() throws {
        let encoder = try JPEGEncoder(quality: 90)
        let bytes = [UInt8](repeating: 0, count: 10)
        #expect(throws: JPEGError.self) {
            try bytes.withUnsafeBytes { try encoder.withJPEG(rgb24: $0, width: 4, height: 4) { _ in } }
        }
        #expect(throws: JPEGError.self) { try JPEGEncoder(quality: 0) }
    }
}
