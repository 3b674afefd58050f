import Eyedropper
import EyedropperJPEG
import EyedropperServer
import EyedropperTestSupport
import Testing

/// serve's JPEGs are 4:2:0, compressed from the planes the capture thread remaps into JPEG's
/// Y'CbCr beside each frame's RGB: frame.jpg and the MJPEG stream decode to the colours the
/// frame's own colorimetry gives, whatever it is. One server at a time: four more at once beside
/// the other server suites' made their paced captures late by more than a frame on 2 cores.
@Suite(.serialized, .timeLimit(.minutes(1)), .oneHeavySuiteAtATime) struct JPEGColourTests {
    /// The exact RGB of the pattern's stored Y'CbCr at the bar centres, read as `colorimetry`
    /// (what `--matrix` and `--range` make the frame say it is).
    static func exactBars(width: Int, height: Int, colorimetry: Colorimetry) throws -> [(x: Int, y: Int, color: RGB8)] {
        let buffer = try TestPattern(width: width, height: height).makeFrameBuffer()
        return buffer.withFrame { frame in
            (0..<8).map { bar in
                let (x, y) = ((2 * bar + 1) * width / 16, height / 4)
                return (x, y, colorimetry.exactRGB(frame.sample(x: x, y: y)))
            }
        }
    }

    static func expectBars(_ image: RGBImage, _ bars: [(x: Int, y: Int, color: RGB8)], _ what: String) {
        for (bar, (x, y, color)) in bars.enumerated() {
            let pixel = image.pixel(x: x, y: y)
            let errors = [Int(pixel.r) - Int(color.r), Int(pixel.g) - Int(color.g), Int(pixel.b) - Int(color.b)]
            #expect(errors.allSatisfy { abs($0) <= 2 }, "\(what) bar \(bar): decoded \(pixel), exact \(color)")
        }
    }

    /// Each bar of frame.jpg and of a stream part is within 2 levels of the exact colour, for the
    /// pattern's own BT.601 limited range and read as BT.709 limited, BT.601 full and BT.2020.
    /// Catches planes remapped with another colorimetry than the frame's, planes of another slot
    /// than the RGB's, or serve still compressing RGB that it converted with a stale matrix.
    @Test(arguments: [nil, Colorimetry.bt709Limited, .bt601Full, Colorimetry(matrix: .bt2020, range: .limited)])
    func frameJPEGAndStreamHaveTheFramesColours(colorimetry: Colorimetry?) async throws {
        var configuration = serveConfiguration(.testPattern(width: 320, height: 240), fps: 10)
        configuration.source.matrix = colorimetry?.matrix
        configuration.source.range = colorimetry?.range
        let bars = try Self.exactBars(width: 320, height: 240, colorimetry: colorimetry ?? .bt601Limited)
        try await withServer(configuration) { client in
            let response = try await client.get("/api/v1/frame.jpg")
            #expect(response.status == .ok)
            Self.expectBars(try JPEGDecoder.decode(response.bytes), bars, "frame.jpg \(colorimetry?.description ?? "as reported")")
            let stream = try await readStream("/api/v1/stream.mjpg", whileCapturing: 3, client)
            let part = try #require(split(stream.bytes, on: Array("--eyedropperframe\r\n".utf8)).dropFirst().first.map(Array.init))
            let headerEnd = try #require(firstIndex(of: [13, 10, 13, 10], in: part[...]))
            Self.expectBars(try JPEGDecoder.decode(Array(part[(headerEnd + 4)..<(part.count - 2)])), bars, "stream part")
        }
    }
}
