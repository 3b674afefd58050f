import Eyedropper
import EyedropperCalibration
import Testing

/// The detector on charts drawn by `ChartDrawing` (their patch centres known exactly), on a
/// mid-grey frame with noise: every patch where it is, whichever way the chart lies, and a
/// refusal, never a wrong chart, where there is none, two, or one cut off.
@Suite struct ChartDetectorTests {
    static let (width, height) = (1280, 720)

    /// A grey frame with uniform noise of +-`noise` levels (a fixed sequence, the same each run).
    static func frame(noise: Int = 3) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<(3 * width * height)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let jitter = Int(state >> 33) % (2 * noise + 1) - noise
            return UInt8(118 + jitter)
        }
    }

    static func detect(_ pixels: [UInt8], _ detector: ChartDetector = ChartDetector()) throws -> DetectedChart {
        try pixels.withUnsafeBytes { bytes in
            try detector.detect(rgb24: bytes, width: width, height: height)
        }
        return detector.chart
    }

    /// Every centre found within a fifth of a step of the drawn one; a chart read turned or
    /// mirrored puts patch 1 a whole step or more away, and fails here.
    static func expectCentres(_ chart: DetectedChart, _ corners: [SIMD2<Double>], _ label: String) {
        let truth = ChartDrawing.patchCenters(corners: corners)
        let step = ((truth[1] - truth[0]) * (truth[1] - truth[0])).sum().squareRoot()
        let worst = (0..<24).map { ((chart.centers[$0] - truth[$0]) * (chart.centers[$0] - truth[$0])).sum().squareRoot() }.max()!
        #expect(worst < 0.2 * step, "\(label): a centre \(worst) px from where it was drawn (step \(step) px)")
    }

    @Test(arguments: Array(stride(from: 0.0, to: 360.0, by: 30.0)), [false, true])
    func findsTheChartAtEveryRollSeenDirectlyOrInAMirror(roll: Double, mirrored: Bool) throws {
        var pixels = Self.frame()
        let corners = ChartDrawing.corners(
            center: SIMD2(620, 380), chartWidth: 340, roll: roll, keystone: 0.15, farSide: Int(roll / 30) % 4, mirrored: mirrored)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "roll \(roll), mirrored \(mirrored)")
        #expect(chart.mirrored == mirrored)
        #expect(chart.confidence >= 0.8, "confidence \(chart.confidence)")
    }

    @Test func findsAChart150PixelsWideAmongSquaresOfOtherColours() throws {
        var pixels = Self.frame(noise: 4)
        // Clutter: squares the size of the chart's patches, of colours near the chart's own.
        for (index, x) in stride(from: 40, to: 1240, by: 60).enumerated() {
            for (row, y) in [40, 640].enumerated() {
                for dy in 0..<22 {
                    for dx in 0..<22 {
                        let offset = 3 * ((y + dy) * Self.width + x + dx)
                        pixels[offset] = UInt8(40 + (index * 37 + row * 90) % 200)
                        pixels[offset + 1] = UInt8(40 + (index * 71) % 200)
                        pixels[offset + 2] = UInt8(40 + (index * 13 + row * 50) % 200)
                    }
                }
            }
        }
        let corners = ChartDrawing.corners(center: SIMD2(900, 330), chartWidth: 150, roll: 200)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        Self.expectCentres(try Self.detect(pixels), corners, "150 px")
    }

    /// A 6 x 4 grid of the chart's own colours in the wrong places is not the chart: only its
    /// colours tell it from one, so a detector that trusts the grid alone fails here.
    @Test func refusesAGridOfTheChartsColoursShuffled() throws {
        var pixels = Self.frame()
        let corners = ChartDrawing.corners(center: SIMD2(640, 360), chartWidth: 400, roll: 0)
        var shuffled = ChartReference.colorChecker2014.lab
        // Colour patches only: the grey ramp still falls from white to black.
        shuffled.swapAt(0, 14)
        shuffled.swapAt(5, 12)
        shuffled.swapAt(8, 3)
        shuffled.swapAt(10, 16)
        shuffled.swapAt(2, 7)
        shuffled.swapAt(6, 17)
        ChartDrawing.draw(
            into: &pixels, width: Self.width, height: Self.height, corners: corners,
            reference: try ChartReference(name: "shuffled", lab: shuffled))
        let error = #expect(throws: ChartDetectionFailure.self) { try Self.detect(pixels) }
        #expect(error?.reason == "no chart")
    }

    @Test func refusesAFrameWithoutAChart() throws {
        let error = #expect(throws: ChartDetectionFailure.self) { try Self.detect(Self.frame()) }
        #expect(error?.reason == "no chart")
    }

    @Test func refusesTwoCharts() throws {
        var pixels = Self.frame()
        for x in [330.0, 950.0] {
            let corners = ChartDrawing.corners(center: SIMD2(x, 360), chartWidth: 400, roll: 10)
            ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        }
        let error = #expect(throws: ChartDetectionFailure.self) { try Self.detect(pixels) }
        #expect(error?.reason == "two charts")
    }

    @Test func refusesAChartPartlyOutsideTheFrame() throws {
        var pixels = Self.frame()
        // Its right-hand column of patches beyond the frame's edge.
        let corners = ChartDrawing.corners(center: SIMD2(1180, 360), chartWidth: 420, roll: 0)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        let error = #expect(throws: ChartDetectionFailure.self) { try Self.detect(pixels) }
        #expect(error?.reason == "outside the frame")
    }

    /// One detector over frames of the chart in different places: each frame's answer is its
    /// own (no state left from the one before).
    @Test func aDetectorReusedOverFramesAnswersEachOnItsOwn() throws {
        let detector = ChartDetector()
        for (index, x) in [400.0, 800.0, 600.0].enumerated() {
            var pixels = Self.frame()
            let corners = ChartDrawing.corners(center: SIMD2(x, 360), chartWidth: 300 + 40 * Double(index), roll: 90 * Double(index))
            ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
            Self.expectCentres(try Self.detect(pixels, detector), corners, "frame \(index)")
        }
        #expect(throws: ChartDetectionFailure.self) { try Self.detect(Self.frame(), detector) }
    }
}

extension ChartDetectorTests {
    /// Sixty squares of random colours, about the size of the chart's patches, strewn over the
    /// frame and around the chart, as the benchmark draws them: some fall near the points of
    /// the chart's grid extended, and must not be taken for patches.
    @Test func findsTheChartAmongRandomSquaresNearItsGrid() throws {
        var state: UInt64 = 24
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z &>> 31)
        }
        let (width, height) = (Self.width, Self.height)
        var pixels = (0..<(3 * width * height)).map { _ in UInt8(114 + next() % 9) }
        for _ in 0..<60 {
            let x = Int(next() % UInt64(width - 40)), y = Int(next() % UInt64(height - 40))
            let color = (UInt8(truncatingIfNeeded: next()), UInt8(truncatingIfNeeded: next()), UInt8(truncatingIfNeeded: next()))
            for dy in 0..<30 {
                for dx in 0..<30 {
                    let offset = 3 * ((y + dy) * width + x + dx)
                    (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = color
                }
            }
        }
        let corners = ChartDrawing.corners(center: SIMD2(704, 360), chartWidth: 300, roll: 33, keystone: 0.15)
        ChartDrawing.draw(into: &pixels, width: width, height: height, corners: corners)
        Self.expectCentres(try Self.detect(pixels), corners, "among squares")
    }
}
