import Eyedropper
import Testing

@Suite struct TestPatternTests {
    /// The centre of each bar converts to its 75% colour within one level (8-bit code values
    /// cannot hold every colour exactly), in every colorimetry the pattern can be made in.
    @Test(arguments: Colorimetry.all)
    func barCentresShowTheirColours(colorimetry: Colorimetry) throws {
        let pattern = try TestPattern(width: 640, height: 480, colorimetry: colorimetry)
        let buffer = try pattern.makeFrameBuffer(layout: .nv12)
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        try buffer.withFrame { frame in
            try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: colorimetry).convert(frame, to: .rgb24, into: $0) }
        }
        for (bar, nominal) in TestPattern.barColors.enumerated() {
            let x = bar * 80 + 40, y = 160
            #expect(pattern.barIndex(x: x) == bar)
            let offset = (y * 640 + x) * 3
            let got = [rgb[offset], rgb[offset + 1], rgb[offset + 2]]
            let want = [nominal.r, nominal.g, nominal.b]
            #expect(zip(got, want).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "bar \(bar): \(got) for \(want)")
        }
    }

    @Test func rampAndSweepHoldTheirNominalColours() throws {
        let pattern = try TestPattern(width: 256, height: 120)
        #expect(pattern.nominalColor(x: 0, y: 90) == RGB8(r: 0, g: 0, b: 0))
        #expect(pattern.nominalColor(x: 255, y: 90) == RGB8(r: 255, g: 255, b: 255))
        #expect(pattern.nominalColor(x: 0, y: 110) == RGB8(r: 255, g: 0, b: 0))
        #expect(pattern.nominalColor(x: 256 / 3, y: 110).g == 255)
    }

    @Test func defaultColorimetryFollowsTheFrameHeight() throws {
        #expect(try TestPattern(width: 640, height: 480).colorimetry == .bt601Limited)
        #expect(try TestPattern(width: 1280, height: 720).colorimetry == .bt709Limited)
    }

    @Test func anySizeIsAccepted() throws {
        for (width, height) in [(1, 1), (3, 5), (17, 2)] {
            let buffer = try TestPattern(width: width, height: height).makeFrameBuffer()
            #expect(buffer.withUnsafeMutableBytes(\.count) == PlanarFrame.packedByteCount(layout: .i420, width: width, height: height))
        }
        #expect(throws: FrameGeometryError.nonPositiveSize(width: 0, height: 5)) { try TestPattern(width: 0, height: 5) }
    }
}
