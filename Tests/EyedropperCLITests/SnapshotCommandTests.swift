import Eyedropper
import EyedropperJPEG
import EyedropperTestSupport
import Foundation
import Testing

@Suite struct SnapshotCommandTests {
    /// The PPM holds the converter's bytes exactly; the JPEG, decoded by libturbojpeg, holds the
    /// same picture (each bar's centre within a few levels, JPEG being lossy).
    @Test func snapshotWritesExactPPMAndFaithfulJPEG() throws {
        let scratch = try ScratchDirectory()
        let ppm = scratch.file("frame.ppm"), jpg = scratch.file("frame.jpg")
        for path in [ppm, jpg] {
            let result = try runEyedropper(["snapshot", "--source", "testpattern", "--size", "640x480", "--out", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == path + "\n")
        }
        let pattern = try TestPattern(width: 640, height: 480)
        var expected = [UInt8](repeating: 0, count: 640 * 480 * 3)
        try pattern.makeFrameBuffer().withFrame { frame in
            try expected.withUnsafeMutableBytes {
                try YCbCrConverter(colorimetry: pattern.colorimetry).convert(frame, to: .rgb24, into: $0)
            }
        }
        let exact = try RGBImage(ppmAt: ppm)
        #expect(exact.pixels == expected)

        let decoded = try JPEGDecoder.decode(ScratchDirectory.read(jpg))
        #expect(decoded.width == 640 && decoded.height == 480)
        for bar in 0..<8 {
            let (x, y) = (bar * 80 + 40, 160)
            let want = exact.pixel(x: x, y: y), got = decoded.pixel(x: x, y: y)
            let error = max(abs(Int(want.r) - Int(got.r)), abs(Int(want.g) - Int(got.g)), abs(Int(want.b) - Int(got.b)))
            #expect(error <= 4, "bar \(bar): \(got) for \(want)")
        }
    }

    /// At quality 95 the JPEG is within JPEG's own error of the exact PPM of the same frame: a
    /// PSNR of at least 40 dB over every channel of every pixel (bars, grey ramp, hue sweep).
    @Test func jpegAtQuality95IsWithin40dBOfTheExactPPM() throws {
        let scratch = try ScratchDirectory()
        let ppm = scratch.file("frame.ppm"), jpg = scratch.file("frame.jpg")
        for (path, extra) in [(ppm, [String]()), (jpg, ["--quality", "95"])] {
            let result = try runEyedropper(["snapshot", "--source", "testpattern", "--out", path] + extra)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let exact = try RGBImage(ppmAt: ppm)
        let decoded = try JPEGDecoder.decode(ScratchDirectory.read(jpg))
        #expect(decoded.width == exact.width && decoded.height == exact.height)
        let squaredError = zip(exact.pixels, decoded.pixels).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        let psnr = 10 * log10(255 * 255 / (squaredError / Double(exact.pixels.count)))
        print("snapshot JPEG at quality 95 against the exact PPM: PSNR \(psnr) dB")
        #expect(psnr >= 40)
    }

    @Test func severalFramesAreNumbered() throws {
        let scratch = try ScratchDirectory()
        let result = try runEyedropper([
            "snapshot", "--source", "testpattern", "--size", "64x48", "--frames", "3", "--out", scratch.file("shot.jpg"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try scratch.names() == ["shot-0001.jpg", "shot-0002.jpg", "shot-0003.jpg"])
        let numbered = try runEyedropper([
            "snapshot", "--source", "testpattern", "--size", "64x48", "--frames", "2", "--out", scratch.file("f%d.ppm"),
        ])
        #expect(numbered.status == 0)
        #expect(try scratch.names().contains("f2.ppm"))
    }

    @Test func badOutputsAreRefusedAndLeaveNothing() throws {
        let scratch = try ScratchDirectory()
        let png = try runEyedropper(["snapshot", "--source", "testpattern", "--out", scratch.file("x.png")])
        #expect(png.status == 64)
        #expect(png.stderr.contains("--out \(scratch.file("x.png")): give a path ending in .jpg, .jpeg or .ppm"))
        let missing = try runEyedropper(["snapshot", "--source", "testpattern", "--out", scratch.file("no/such/dir/x.jpg")])
        #expect(missing.status == 73)
        #expect(missing.stderr.contains("no/such/dir/x.jpg: cannot create"))
        #expect(try scratch.names().isEmpty)
    }
}
