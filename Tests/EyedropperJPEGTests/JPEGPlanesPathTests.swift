import Eyedropper
import EyedropperJPEG
import EyedropperTestSupport
import Foundation
import Testing

/// The 4:2:0 path that compresses from the frame's planes (remapped to JPEG's Y'CbCr) against the
/// RGB path it replaces, both decoded by two decoders: libturbojpeg (`JPEGDecoder`) and djpeg
/// (libjpeg-turbo-progs, a separate program reading the file as any viewer would).
@Suite struct JPEGPlanesPathTests {
    /// A frame of `content` and its exact RGB (what `snapshot --out x.ppm` writes).
    private static func frame(_ content: String, width: Int, height: Int) throws -> (FrameBuffer, [UInt8]) {
        let buffer = try TestPattern(width: width, height: height).makeFrameBuffer()
        if content == "noisy" {
            // Sensor-like noise, -7...7 on every sample, seeded.
            var random = TestRandom(seed: 0x4e6f_6973_79)
            buffer.withUnsafeMutableBytes { bytes in
                for index in bytes.indices {
                    let draw = random.next()
                    bytes[index] = UInt8(clamping: Int(bytes[index]) + Int(draw & 7) + Int((draw >> 3) & 7) - 7)
                }
            }
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        try buffer.withFrame { frame in
            try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: frame.colorimetry).convert(frame, to: .rgb24, into: $0) }
        }
        return (buffer, rgb)
    }

    private static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count)
        var squared = 0
        for index in a.indices {
            let difference = Int(a[index]) - Int(b[index])
            squared += difference * difference
        }
        return 10 * log10(255 * 255 / (Double(squared) / Double(a.count)))
    }

    /// Both paths at quality 90, 4:2:0: the planes path's PSNR against the exact RGB is within
    /// 0.5 dB of the RGB path's (or better), decoded by libturbojpeg, on the 1080p test pattern and
    /// on a noisy one. Catches a remap with the wrong matrix, range or chroma siting (each costs
    /// dB over the whole picture) and planes handed to libturbojpeg swapped or misaligned.
    @Test(arguments: ["pattern", "noisy"])
    func planesPathKeepsThePictureAsWellAsRGB(content: String) throws {
        try Self.comparePaths(content, decoder: "libturbojpeg", JPEGDecoder.decode)
    }

    /// The same, decoded by djpeg: a program of its own, reading the file as any viewer would.
    @Test(.enabled(if: Djpeg.isInstalled, Djpeg.missing), arguments: ["pattern", "noisy"])
    func planesPathKeepsThePictureAsWellAsRGBThroughDjpeg(content: String) throws {
        try Self.comparePaths(content, decoder: "djpeg", Djpeg.decode)
    }

    private static func comparePaths(_ content: String, decoder: String, _ decode: ([UInt8]) throws -> RGBImage) throws {
        let (width, height) = (1920, 1080)
        let (buffer, exact) = try Self.frame(content, width: width, height: height)
        let encoder = try JPEGEncoder(quality: 90, subsampling: .s420)
        let rgbJPEG = try exact.withUnsafeBytes { try encoder.withJPEG(rgb24: $0, width: width, height: height) { Array($0) } }
        let planesJPEG = try buffer.withFrame { frame in try encoder.withJPEG(frame) { Array($0) } }
        let (viaRGB, viaPlanes) = (try decode(rgbJPEG), try decode(planesJPEG))
        #expect((viaPlanes.width, viaPlanes.height) == (width, height))
        let (rgbPSNR, planesPSNR) = (Self.psnr(viaRGB.pixels, exact), Self.psnr(viaPlanes.pixels, exact))
        print(
            "\(content) \(width)x\(height), quality 90, 4:2:0, \(decoder): RGB path \(rgbPSNR) dB, planes path \(planesPSNR) dB, \(rgbJPEG.count) / \(planesJPEG.count) bytes"
        )
        #expect(planesPSNR >= rgbPSNR - 0.5, "\(content), \(decoder): planes \(planesPSNR) dB against RGB \(rgbPSNR) dB")
    }

    /// The 1080p pattern's eight bars, through the planes path, decode within 2 levels of the
    /// exact RGB at their centres, by libturbojpeg. Catches a colour cast of the remap (a wrong
    /// matrix moves saturated bars by 10 levels or more) and Cb and Cr swapped.
    @Test func barsDecodeToTheirColours() throws {
        try Self.checkBars(decoder: JPEGDecoder.decode)
    }

    /// The same, decoded by djpeg.
    @Test(.enabled(if: Djpeg.isInstalled, Djpeg.missing))
    func barsDecodeToTheirColoursThroughDjpeg() throws {
        try Self.checkBars(decoder: Djpeg.decode)
    }

    private static func checkBars(decoder decode: ([UInt8]) throws -> RGBImage) throws {
        let (width, height) = (1920, 1080)
        let (buffer, exact) = try Self.frame("pattern", width: width, height: height)
        let jpeg = try buffer.withFrame { frame in try JPEGEncoder(quality: 90).withJPEG(frame) { Array($0) } }
        let image = try decode(jpeg)
        for bar in 0..<8 {
            let (x, y) = ((2 * bar + 1) * width / 16, height / 3)
            let offset = (y * width + x) * 3
            let decoded = image.pixels[offset..<(offset + 3)].map(Int.init), wanted = exact[offset..<(offset + 3)].map(Int.init)
            #expect(zip(decoded, wanted).allSatisfy { abs($0 - $1) <= 2 }, "bar \(bar): \(decoded), exact \(wanted)")
        }
    }

    /// A flat patch of each colour in each colorimetry decodes within 2 levels of the exact RGB of
    /// its stored Y'CbCr. Catches a remap table built for the wrong matrix or range, which only a
    /// frame that says it is BT.2020 or full range would show.
    @Test(arguments: Colorimetry.all)
    func flatPatchesKeepTheirColour(colorimetry: Colorimetry) throws {
        let colors = TestPattern.barColors + [RGB8(r: 255, g: 128, b: 0), RGB8(r: 20, g: 200, b: 240), RGB8(r: 250, g: 250, b: 250)]
        let encoder = try JPEGEncoder(quality: 90)
        for color in colors {
            let sample = colorimetry.ycbcr(color), wanted = colorimetry.exactRGB(sample)
            let buffer = try FrameBuffer(layout: .nv12, width: 48, height: 32, colorimetry: colorimetry)
            for y in 0..<32 { for x in 0..<48 { buffer.set(x: x, y: y, to: sample) } }
            let jpeg = try buffer.withFrame { frame in try encoder.withJPEG(frame) { Array($0) } }
            let pixel = try JPEGDecoder.decode(jpeg).pixel(x: 24, y: 16)
            let errors = [Int(pixel.r) - Int(wanted.r), Int(pixel.g) - Int(wanted.g), Int(pixel.b) - Int(wanted.b)]
            #expect(errors.allSatisfy { abs($0) <= 2 }, "\(colorimetry) \(color): decoded \(pixel), exact \(wanted)")
        }
    }

    /// A 4:4:4 encoder has no planes path: it says so rather than writing a 4:2:0 JPEG.
    @Test func fourFourFourRefusesPlanes() throws {
        let buffer = try TestPattern(width: 64, height: 48).makeFrameBuffer()
        let encoder = try JPEGEncoder(quality: 90, subsampling: .s444)
        #expect(throws: JPEGError.self) { try buffer.withFrame { frame in try encoder.withJPEG(frame) { _ in } } }
    }
}

/// djpeg (libjpeg-turbo-progs; Scripts/test installs it) as a second decoder. Where it is not
/// installed, its tests are skipped by name, with the line that says so and how to install it.
enum Djpeg {
    static let path = "/usr/bin/djpeg"
    static var isInstalled: Bool { access(path, X_OK) == 0 }
    static let missing: Comment =
        "NOT RUN: \(path) is not installed, so no second decoder checked the planes path's JPEGs (Scripts/install-deps libjpeg-turbo-progs, or Scripts/test swift, installs it)"

    static func decode(_ jpeg: [UInt8]) throws -> RGBImage {
        let directory = try ScratchDirectory()
        let input = directory.file("in.jpg"), output = directory.file("out.ppm")
        try ScratchDirectory.write(jpeg, to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-dct", "int", "-ppm", "-outfile", output, input]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "djpeg could not decode the JPEG")
        return try RGBImage(ppmAt: output)
    }
}
