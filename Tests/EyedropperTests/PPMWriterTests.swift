import Eyedropper
import EyedropperTestSupport
import SystemPackage
import Testing

@Suite struct PPMWriterTests {
    /// Converts the test pattern to RGB24 with rows `stride` bytes apart (tight when nil).
    func convertedPattern(width: Int, height: Int, stride: Int?) throws -> (bytes: [UInt8], stride: Int) {
        let pattern = try TestPattern(width: width, height: height)
        let buffer = try pattern.makeFrameBuffer(layout: .i420)
        let rowStride = stride ?? 3 * width
        // Padding bytes are 0xEE so a writer that copied them would be caught.
        var rgb = [UInt8](repeating: 0xEE, count: rowStride * height)
        try rgb.withUnsafeMutableBytes { destination in
            try buffer.withFrame { frame in
                try YCbCrConverter(colorimetry: pattern.colorimetry)
                    .convert(frame, to: .rgb24, into: destination, stride: stride)
            }
        }
        return (rgb, rowStride)
    }

    @Test(arguments: [(33, 17, nil), (33, 17, 33 * 3 + 13), (1, 1, nil), (64, 48, 256), (1280, 720, nil)] as [(Int, Int, Int?)])
    func convertedFrameRoundTripsByteForByte(width: Int, height: Int, stride: Int?) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("frame.ppm")
        let (rgb, rowStride) = try convertedPattern(width: width, height: height, stride: stride)
        try rgb.withUnsafeBytes { bytes in
            try PPMWriter.write(rgb24: bytes, width: width, height: height, stride: stride, to: path)
        }
        #expect(try directory.names() == ["frame.ppm"])

        let header = Array("P6\n\(width) \(height)\n255\n".utf8)
        let file = try ScratchDirectory.read(path)
        #expect(Array(file.prefix(header.count)) == header)
        #expect(file.count == header.count + 3 * width * height)

        let image = try RGBImage(ppmAt: path)
        #expect(image.width == width && image.height == height)
        let expected = (0..<height).flatMap { row in rgb[(row * rowStride)..<(row * rowStride + 3 * width)] }
        #expect(image.pixels == expected)
    }

    @Test func headerIsExact() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("small.ppm")
        let (rgb, _) = try convertedPattern(width: 33, height: 17, stride: nil)
        try rgb.withUnsafeBytes { try PPMWriter.write(rgb24: $0, width: 33, height: 17, to: path) }
        #expect(Array(try ScratchDirectory.read(path).prefix(13)) == Array("P6\n33 17\n255\n".utf8))
        #expect(PPMWriter.header(width: 33, height: 17) == "P6\n33 17\n255\n")
    }

    @Test func readerSkipsCommentsAndGivesPixels() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("comments.ppm")
        try ScratchDirectory.write(Array("P6\n# made by hand\n2 1 # two by one\n255\n".utf8) + [255, 0, 0, 10, 20, 30], to: path)
        let image = try RGBImage(ppmAt: path)
        #expect(image == RGBImage(width: 2, height: 1, pixels: [255, 0, 0, 10, 20, 30]))
        #expect(image.pixel(x: 1, y: 0) == RGB8(r: 10, g: 20, b: 30))
    }

    @Test(
        arguments: [
            (Array("P3\n1 1\n255\n0 0 0\n".utf8), "not a binary PPM"),
            (Array("P6\n1 1\n65535\n".utf8) + [0, 0, 0, 0, 0, 0], "maximum value 65535 is not 255"),
            (Array("P6\n2 2\n255\n".utf8) + [1, 2, 3], "3 bytes of pixels where a 2x2 image has 12"),
            (Array("P6\n0 2\n255\n".utf8), "the header's width is missing, zero or too large"),
            (Array("P6\n2".utf8), "the header's width is missing, zero or too large"),
        ] as [([UInt8], String)])
    func damagedImageIsAnErrorNamingTheFile(bytes: [UInt8], message: String) throws {
        let directory = try ScratchDirectory()
        let path = directory.file("bad.ppm")
        try ScratchDirectory.write(bytes, to: path)
        let error = try #require(throws: PPMError.self) { try RGBImage(ppmAt: path) }
        #expect(error.description.hasPrefix("\(path): \(message)"))
        #expect(error.systemCall == nil)
    }

    @Test func writingIntoAMissingDirectoryNamesThePathAndLeavesNothing() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("no such directory/frame.ppm")
        let pixels: [UInt8] = [1, 2, 3]
        let error = try #require(throws: PPMError.self) {
            try pixels.withUnsafeBytes { try PPMWriter.write(rgb24: $0, width: 1, height: 1, to: path) }
        }
        #expect(error.path == path)
        #expect(error.description.hasPrefix("\(path): cannot create: its directory does not exist (No such file or directory)"))
        #expect(error.systemCall == SystemCallError(operation: "create", errno: .noSuchFileOrDirectory))
        #expect(try directory.names() == [])
    }

    @Test func tooSmallBufferWritesNothing() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("short.ppm")
        let pixels = [UInt8](repeating: 0, count: 3 * 4 * 2 - 1)
        let error = try #require(throws: PPMError.self) {
            try pixels.withUnsafeBytes { try PPMWriter.write(rgb24: $0, width: 4, height: 2, to: path) }
        }
        #expect(error.description == "\(path): the RGB buffer holds 23 bytes but 4x2 at stride 12 needs 24: nothing written")
        #expect(try directory.names() == [])
    }

    @Test func writingReplacesAnExistingFileWhole() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("replace.ppm")
        try ScratchDirectory.write(Array("old contents".utf8), to: path)
        let pixels: [UInt8] = [9, 8, 7, 6, 5, 4]
        try pixels.withUnsafeBytes { try PPMWriter.write(rgb24: $0, width: 1, height: 2, to: path) }
        #expect(try RGBImage(ppmAt: path) == RGBImage(width: 1, height: 2, pixels: pixels))
        #expect(try directory.names() == ["replace.ppm"])
    }

    @Test func missingImageSaysItDoesNotExist() throws {
        let directory = try ScratchDirectory()
        let path = directory.file("absent.ppm")
        let error = try #require(throws: PPMError.self) { try RGBImage(ppmAt: path) }
        #expect(error.description.hasPrefix("\(path): cannot open: the file does not exist"))
    }
}
