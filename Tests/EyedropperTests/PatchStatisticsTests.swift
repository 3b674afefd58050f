import Eyedropper
import EyedropperTestSupport
import Testing

private func point(_ x: Double, _ y: Double) -> SamplePoint { try! SamplePoint(x: x, y: y) }

/// Corners, edges, the centre and a point that selects the last column.
private let edgePoints = [
    point(0, 0), point(1, 1), point(1, 0), point(0, 1), point(0.5, 0.5), point(0.5, 0), point(0, 0.5),
    point(0.999, 0.77),
]

/// The patch's pixels as a row kernel converts them (`FixedPointCoefficients.convert`), one
/// array of values per channel, appended to `values`.
private func patchValues(
    _ frame: borrowing PlanarFrame, _ colorimetry: Colorimetry, _ point: SamplePoint, radius: Int, into values: inout [[Double]]
) {
    let coefficients = FixedPointCoefficients(colorimetry)
    let (cx, cy) = point.pixel(width: frame.width, height: frame.height)
    for y in max(0, cy - radius)...min(frame.height - 1, cy + radius) {
        for x in max(0, cx - radius)...min(frame.width - 1, cx + radius) {
            let color = coefficients.convert(frame.sample(x: x, y: y))
            for (channel, value) in [color.r, color.g, color.b].enumerated() { values[channel].append(Double(value)) }
        }
    }
}

/// The reference for one patch's pixels.
private func reference(
    _ frame: borrowing PlanarFrame, _ colorimetry: Colorimetry, _ point: SamplePoint, radius: Int
) -> ReferenceStatistics {
    var values: [[Double]] = [[], [], []]
    patchValues(frame, colorimetry, point, radius: radius, into: &values)
    return ReferenceStatistics(values: values)
}

private func levels(_ color: RGB8) -> [Int] { [Int(color.r), Int(color.g), Int(color.b)] }

private func components(_ values: (r: Double, g: Double, b: Double)) -> [Double] { [values.r, values.g, values.b] }

@Suite struct PatchStatisticsTests {
    /// The direct path, the full-frame path and `RGBFrame.sample` (what the server reads) give
    /// the same statistics, and those of the reference, on random frames of odd size at every
    /// edge and corner. Catches a path that counts its patch differently, a sample (n - 1)
    /// deviation, clipped counted per pixel rather than per channel, or 0 and 255 not both counted.
    @Test(arguments: [0, 1, 2, 7])
    func everyPathGivesTheReferenceStatistics(radius: Int) throws {
        for colorimetry in [Colorimetry.bt601Full, .bt709Limited] {
            let source = GuardedFrame(layout: .i420, width: 37, height: 23, padding: 3, placement: .flushEnd, seed: UInt64(40 + radius))
            let sampler = ColorSampler(colorimetry: colorimetry)
            var direct: [ColorSample] = [], full: [ColorSample] = [], rgb: [ColorSample] = []
            try source.withFrame { frame in
                try sampler.sample(frame, at: edgePoints, radius: radius, path: .direct, into: &direct)
                try sampler.sample(frame, at: edgePoints, radius: radius, path: .fullFrame, into: &full)
                try sampler.withRGB24(frame) { image in image.sample(at: edgePoints, radius: radius, into: &rgb) }
                #expect(direct == full && direct == rgb, "\(colorimetry) r\(radius)")
                try #require(direct.map(\.point) == edgePoints, "one sample per point, in order")
                for (sample, point) in zip(direct, edgePoints) {
                    let expected = reference(frame, colorimetry, point, radius: radius)
                    let statistics = sample.statistics
                    let context = "\(colorimetry) r\(radius) at \(sample.point)"
                    #expect(statistics.count == expected.n, "\(context)")
                    #expect(statistics.clipped == expected.clipped, "\(context)")
                    #expect(zip(components(statistics.mean), expected.mean).allSatisfy { abs($0 - $1) < 1e-9 }, "\(context)")
                    #expect(zip(components(statistics.standardDeviation), expected.sd).allSatisfy { abs($0 - $1) < 1e-9 }, "\(context)")
                    #expect(levels(sample.color) == expected.levels, "\(context)")
                }
            }
        }
    }

    /// Two values far apart: mean and deviation both 127.5, exactly; the mean rounds half up, as
    /// the colour always has; every channel is clipped. Catches rounding half down or to even.
    @Test func blackAndWhiteSplitEvenly() {
        var statistics = PatchStatistics()
        for _ in 0..<10 {
            statistics.merge(PatchStatistics(RGB8(r: 0, g: 0, b: 0)))
            statistics.merge(PatchStatistics(RGB8(r: 255, g: 255, b: 255)))
        }
        #expect(statistics.count == 20 && statistics.clipped == 60)
        #expect(components(statistics.mean) == [127.5, 127.5, 127.5])
        #expect(components(statistics.standardDeviation) == [127.5, 127.5, 127.5])
        #expect(statistics.roundedMean == RGB8(r: 128, g: 128, b: 128))
    }

    /// A flat patch grown to 2^30 pixels (a thousand frames of the largest patch) keeps a
    /// deviation of exactly 0: the integer numerator cannot cancel to a negative (NaN) or a
    /// rounding residue, and n Σx² (7.5 x 10^22) does not overflow. Catches Double sums of squares
    /// and a 64-bit numerator, which traps here.
    @Test func flatPatchesHaveNoSpreadHoweverLarge() {
        var statistics = PatchStatistics(RGB8(r: 255, g: 201, b: 0))
        for _ in 0..<30 { statistics.merge(statistics) }
        #expect(statistics.count == 1 << 30)
        #expect(statistics.clipped == 2 << 30)
        #expect(components(statistics.mean) == [255, 201, 0])
        #expect(components(statistics.standardDeviation) == [0, 0, 0])
        #expect(statistics.roundedMean == RGB8(r: 255, g: 201, b: 0))
    }

    @Test func noPixelsAreAllZero() {
        let empty = PatchStatistics()
        #expect(empty.count == 0 && empty.clipped == 0)
        #expect(components(empty.mean) == [0, 0, 0] && components(empty.standardDeviation) == [0, 0, 0])
    }
}

@Suite struct SampleAverageTests {
    /// A block's samples are the statistics of all its frames' samples merged, point by point;
    /// its first frame, timestamp and colorimetry are the first added; reset starts afresh.
    /// Catches a block that keeps only the last frame, mixes points, or carries totals over.
    @Test func blocksMergeTheirFramesPointByPoint() throws {
        let points = [point(0, 0), point(0.5, 0.5)]
        let sampler = ColorSampler()
        var block = SampleAverage(points: points)
        var perFrame: [[ColorSample]] = [], samples: [ColorSample] = []
        // Every pixel of every frame's patch, per point: the reference pools them.
        var pooled = Array(repeating: [[Double]](repeating: [], count: 3), count: points.count)
        for seed in 1...3 {
            let source = GuardedFrame(layout: .nv12, width: 16, height: 10, padding: 0, placement: .flushEnd, seed: UInt64(seed))
            try source.withFrame { frame in
                try sampler.sample(frame, at: points, radius: 1, into: &samples)
                for (index, point) in points.enumerated() {
                    patchValues(frame, frame.colorimetry, point, radius: 1, into: &pooled[index])
                }
            }
            perFrame.append(samples)
            block.add(samples, frame: 10 + seed, timestamp: Double(seed) / 10, colorimetry: .bt601Limited)
        }
        #expect(block.frames == 3 && block.firstFrame == 11 && block.firstTimestamp == 0.1 && block.colorimetry == .bt601Limited)
        var averaged: [ColorSample] = []
        block.samples(into: &averaged)
        try #require(averaged.map(\.point) == points)
        for index in points.indices {
            let expected = ReferenceStatistics(values: pooled[index]), statistics = averaged[index].statistics
            #expect(statistics.count == expected.n && statistics.clipped == expected.clipped)
            #expect(zip(components(statistics.mean), expected.mean).allSatisfy { abs($0 - $1) < 1e-9 })
            #expect(zip(components(statistics.standardDeviation), expected.sd).allSatisfy { abs($0 - $1) < 1e-9 })
            #expect(levels(averaged[index].color) == expected.levels)
            // The corner's 2x2 of its 3x3 patch, the centre's 3x3, three frames each.
            #expect(averaged[index].statistics.count == 3 * (index == 0 ? 4 : 9))
        }
        block.reset()
        #expect(block.frames == 0 && block.colorimetry == nil)
        block.add(perFrame[2], frame: 20, timestamp: 2, colorimetry: .bt709Full)
        block.samples(into: &averaged)
        #expect(averaged == perFrame[2] && block.firstFrame == 20)
    }
}
