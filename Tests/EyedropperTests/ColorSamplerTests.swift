import Eyedropper
import EyedropperTestSupport
import Testing

private func point(_ x: Double, _ y: Double) -> SamplePoint { try! SamplePoint(x: x, y: y) }

/// The largest difference between two colours' channels, in levels.
private func levelsApart(_ a: RGB8, _ b: RGB8) -> Int {
    max(abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
}

/// Edges, corners, the centre and points that select the last row or column.
private let awkwardPoints = [
    point(0, 0), point(1, 1), point(1, 0), point(0, 1), point(0.5, 0.5),
    point(0.999, 0.5), point(0.5, 0.0001), point(0.33, 0.77),
]

/// The reference: the exact formula per pixel, rounded, averaged over the clipped patch, rounded.
private func exactPatch(
    _ frame: borrowing PlanarFrame, _ colorimetry: Colorimetry, _ point: SamplePoint, radius: Int
) -> RGB8 {
    let (cx, cy) = point.pixel(width: frame.width, height: frame.height)
    var sums = (0, 0, 0), count = 0
    for y in max(0, cy - radius)...min(frame.height - 1, cy + radius) {
        for x in max(0, cx - radius)...min(frame.width - 1, cx + radius) {
            let exact = colorimetry.exactRGB(frame.sample(x: x, y: y))
            sums.0 += Int(exact.r)
            sums.1 += Int(exact.g)
            sums.2 += Int(exact.b)
            count += 1
        }
    }
    func mean(_ sum: Int) -> UInt8 { UInt8((Double(sum) / Double(count)).rounded(.toNearestOrAwayFromZero)) }
    return RGB8(r: mean(sums.0), g: mean(sums.1), b: mean(sums.2))
}

@Suite struct ColorSamplerTests {
    @Test func pointsSelectPixelsByFloor() throws {
        #expect(point(0, 0).pixel(width: 640, height: 480) == (0, 0))
        #expect(point(1, 1).pixel(width: 640, height: 480) == (639, 479))
        #expect(point(0.5, 0.5).pixel(width: 3, height: 5) == (1, 2))
        #expect(point(0.999, 0.2).pixel(width: 1000, height: 10) == (999, 2))
    }

    @Test func pointsOutsideTheFrameAreRefusedNotClamped() {
        for (x, y) in [(-0.01, 0.5), (0.5, 1.0001), (.nan, 0.5), (0.5, .infinity), (-.infinity, 0)] {
            #expect(throws: SamplingError.self) { try SamplePoint(x: x, y: y) }
        }
        #expect(
            SamplingError.pointOutside(x: 1.5, y: 0).description
                == "point 1.5,0.0 is outside the frame: both coordinates must be within 0...1, (0, 0) the top-left corner")
    }

    @Test func radiusOutOfRangeIsRefused() throws {
        let buffer = try TestPattern(width: 16, height: 16).makeFrameBuffer()
        let sampler = ColorSampler()
        var samples: [ColorSample] = []
        buffer.withFrame { frame in
            #expect(throws: SamplingError.radiusOutOfRange(-1)) {
                try sampler.sample(frame, at: [.center], radius: -1, into: &samples)
            }
            #expect(throws: SamplingError.radiusOutOfRange(513)) {
                try sampler.sample(frame, at: [.center], radius: 513, into: &samples)
            }
        }
    }

    /// Both paths give the same colours, and those are within a level of the exact formula, for
    /// every matrix, range, layout and radius, at edges and corners of odd-sized frames.
    @Test(arguments: PixelLayout.allCases, [0, 1, 3])
    func bothPathsAgreeAndMatchTheExactFormula(layout: PixelLayout, radius: Int) throws {
        for colorimetry in Colorimetry.all {
            for (width, height) in [(37, 23), (64, 48), (1, 1)] {
                let source = GuardedFrame(
                    layout: layout, width: width, height: height, padding: 3, placement: .flushEnd, seed: UInt64(width + radius))
                let sampler = ColorSampler(colorimetry: colorimetry)
                var direct: [ColorSample] = [], full: [ColorSample] = []
                try source.withFrame { frame in
                    try sampler.sample(frame, at: awkwardPoints, radius: radius, path: .direct, into: &direct)
                    try sampler.sample(frame, at: awkwardPoints, radius: radius, path: .fullFrame, into: &full)
                    #expect(direct == full, "\(layout) \(colorimetry) \(width)x\(height) r\(radius)")
                    for sample in direct {
                        let exact = exactPatch(frame, colorimetry, sample.point, radius: radius)
                        let error = [
                            Int(sample.color.r) - Int(exact.r), Int(sample.color.g) - Int(exact.g), Int(sample.color.b) - Int(exact.b),
                        ]
                        #expect(error.allSatisfy { abs($0) <= 1 }, "\(sample.point) \(colorimetry): \(sample.color) vs exact \(exact)")
                    }
                }
            }
        }
    }

    /// The frame's own colorimetry is used unless the sampler is given one.
    @Test func colorimetryComesFromTheFrameUnlessGiven() throws {
        let pattern = try TestPattern(width: 640, height: 480, colorimetry: .bt709Full)
        let buffer = try pattern.makeFrameBuffer()
        var samples: [ColorSample] = []
        let bar = point(4.5 / 8, 0.25)  // magenta
        try buffer.withFrame { frame in
            try ColorSampler().sample(frame, at: [bar], into: &samples)
            #expect(samples[0].color == pattern.colorimetry.exactRGB(frame.sample(x: 360, y: 120)))
            // Given BT.601 limited, the same code values convert by its exact formula (within the
            // one level every kernel keeps to), and not by the frame's BT.709 full range.
            try ColorSampler(colorimetry: .bt601Limited).sample(frame, at: [bar], into: &samples)
            let code = frame.sample(x: 360, y: 120)
            #expect(levelsApart(samples[0].color, Colorimetry.bt601Limited.exactRGB(code)) <= 1)
            #expect(levelsApart(samples[0].color, Colorimetry.bt709Full.exactRGB(code)) > 1)
        }
    }

    @Test func automaticPathIsDirectForFewPointsAndFullFrameForMany() throws {
        let buffer = try TestPattern(width: 1920, height: 1080).makeFrameBuffer()
        let sampler = ColorSampler()
        var samples: [ColorSample] = []
        try buffer.withFrame { frame in
            try sampler.sample(frame, at: Array(repeating: .center, count: 10), into: &samples)
            #expect(sampler.lastPath == .direct)
            try sampler.sample(frame, at: Array(repeating: .center, count: 100), radius: 20, into: &samples)
            #expect(sampler.lastPath == .fullFrame)
            #expect(samples.count == 100)
        }
    }

    /// Several workers, each with its own sampler (the compiler allows nothing else), sample
    /// different frames at once; every round of every worker is checked. Run under the thread
    /// sanitizer too.
    @Test func workersSampleConcurrently() async throws {
        let sizes = [(640, 480), (1280, 720), (320, 240), (1920, 1080)]
        let rounds = 20
        let results = try await withThrowingTaskGroup(of: (worker: Int, checked: Int, wrong: [String]).self) { group in
            for (index, (width, height)) in sizes.enumerated() {
                group.addTask {
                    let pattern = try TestPattern(width: width, height: height)
                    let buffer = try pattern.makeFrameBuffer(layout: PixelLayout.allCases[index])
                    let sampler = ColorSampler()
                    var samples: [ColorSample] = []
                    let points = (0..<8).map { point((Double($0) + 0.5) / 8, 0.3) }
                    var checked = 0, wrong: [String] = []
                    for round in 0..<rounds {
                        try buffer.withFrame { frame in
                            try sampler.sample(frame, at: points, radius: round % 3, into: &samples)
                            let expected = points.map { exactPatch(frame, pattern.colorimetry, $0, radius: round % 3) }
                            if samples.count != expected.count { wrong.append("round \(round): \(samples.count) samples") }
                            for (got, want) in zip(samples.map(\.color), expected)
                            where abs(Int(got.r) - Int(want.r)) > 1 || abs(Int(got.g) - Int(want.g)) > 1
                                || abs(Int(got.b) - Int(want.b)) > 1
                            {
                                wrong.append("round \(round): \(got) for \(want)")
                            }
                            checked += samples.count
                        }
                    }
                    return (index, checked, wrong)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.map(\.worker).sorted() == Array(sizes.indices))
        for result in results {
            #expect(result.checked == rounds * 8, "worker \(result.worker)")
            #expect(result.wrong.isEmpty, "worker \(result.worker): \(result.wrong)")
        }
    }
}
