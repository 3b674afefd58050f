import Eyedropper
import EyedropperCalibration
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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

    /// A column of 4 patches beyond the frame's right edge: found, those 4 hidden as beyond the
    /// frame, their centres (beyond 1 in the JSON) from the grid; a detector that clamps them,
    /// or refuses the chart, fails here.
    @Test func findsAChartWithAColumnBeyondTheFrame() throws {
        var pixels = Self.frame()
        // 66 px a step: the sixth column's centres at x 1315, the fifth's at 1249.
        let corners = ChartDrawing.corners(center: SIMD2(1150, 360), chartWidth: 420, roll: 0)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "a column beyond the edge")
        #expect(chart.hiddenNumbers == [6, 12, 18, 24])
        #expect(chart.outside == (0..<24).map { $0 % 6 == 5 })
        #expect(chart.centers[5].x > Double(Self.width))
    }

    /// Two columns (8 patches) beyond the edge: more than can be hidden; refused as outside.
    @Test func refusesAChartWithTwoColumnsBeyondTheFrame() throws {
        var pixels = Self.frame()
        let corners = ChartDrawing.corners(center: SIMD2(1210, 360), chartWidth: 420, roll: 0)
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

extension ChartDetectorTests {
    /// Blurs RGB24 `pixels` (a box of 2r + 1, three times: close to a Gaussian of sd r), as a
    /// lens and a camera's processing soften every edge over several pixels.
    static func blurred(_ pixels: [UInt8], width: Int, height: Int, radius r: Int) -> [UInt8] {
        var a = pixels.map(Double.init), b = a
        for _ in 0..<3 {
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var sum = 0.0
                        for dx in -r...r { sum += a[3 * (y * width + min(width - 1, max(0, x + dx))) + c] }
                        b[3 * (y * width + x) + c] = sum / Double(2 * r + 1)
                    }
                }
            }
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var sum = 0.0
                        for dy in -r...r { sum += b[3 * (min(height - 1, max(0, y + dy)) * width + x) + c] }
                        a[3 * (y * width + x) + c] = sum / Double(2 * r + 1)
                    }
                }
            }
        }
        return a.map { UInt8($0.rounded()) }
    }

    /// A chart held up close (its patches 120 pixels across), its edges softened over some 8
    /// pixels: each step from a patch to the dark gap is under the noise threshold, and a
    /// detector that joins neighbouring pixels on the frame alone makes the chart one region
    /// and finds nothing. Found at a coarser level of the pyramid.
    @Test func findsAChartFillingTheFrameWithSoftEdges() throws {
        var pixels = Self.frame(noise: 2)
        let corners = ChartDrawing.corners(center: SIMD2(640, 360), chartWidth: 860, roll: 3, keystone: 0.05)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners)
        let soft = Self.blurred(pixels, width: Self.width, height: Self.height, radius: 2)
        let chart = try Self.detect(soft)
        Self.expectCentres(chart, corners, "close up, soft")
        #expect(chart.visibleNumbers.count == 24)
    }

    /// Five patches under a green blob (a leaf) that runs over their gaps: found, those five
    /// hidden and every other visible, all 24 centres right. A detector that reads the leaf as
    /// patches keeps them visible (or fits the leaf and turns the chart), and fails here.
    @Test func findsAChartWithFivePatchesCovered() throws {
        let covered = [1, 2, 7, 8, 13]
        let (pixels, corners) = Self.chartWithCovered(covered)
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "five covered")
        #expect(chart.hiddenNumbers == covered)
        #expect(!chart.outside.contains(true))
    }

    /// One patch alone under a skin-coloured disc (a fingertip pressed flat, a sticker) as
    /// wide as the patches' step: the disc is as compact as a patch and sits where one is, but its
    /// colour runs on over the gaps around it. Hidden; a detector that takes any compact shape
    /// at a grid point for the patch reads the disc's colour as patch 17's, and fails here.
    @Test func findsAChartWithOnePatchUnderADiscOfItsOwn() throws {
        let (pixels, corners) = Self.chartWithCovered([17], colour: (210, 160, 140))
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "one under a disc")
        #expect(chart.hiddenNumbers == [17])
    }

    /// Seven covered: more than the detector may hide; not given as a chart.
    @Test func refusesAChartWithSevenPatchesCovered() throws {
        let (pixels, _) = Self.chartWithCovered([1, 2, 3, 7, 8, 9, 13])
        #expect(throws: ChartDetectionFailure.self) { try Self.detect(pixels) }
    }

    /// The chart 560 pixels wide, rolled 20° and in perspective, with discs a little wider than
    /// a patch (of leaf green, or `colour`) over the patches `numbered` (1...24).
    static func chartWithCovered(
        _ numbered: [Int], colour: (Int, Int, Int) = (60, 110, 40)
    ) -> (pixels: [UInt8], corners: [SIMD2<Double>]) {
        var pixels = frame()
        let corners = ChartDrawing.corners(center: SIMD2(640, 360), chartWidth: 560, roll: 20, keystone: 0.1)
        ChartDrawing.draw(into: &pixels, width: width, height: height, corners: corners)
        let truth = ChartDrawing.patchCenters(corners: corners)
        let step = ((truth[1] - truth[0]) * (truth[1] - truth[0])).sum().squareRoot()
        cover(&pixels, at: numbered.map { truth[$0 - 1] }, radius: 0.62 * step, colour: colour)
        return (pixels, corners)
    }

    /// Discs of leaf green (or `colour`), with a little texture, over `points`.
    static func cover(
        _ pixels: inout [UInt8], at points: [SIMD2<Double>], radius: Double, colour: (Int, Int, Int) = (60, 110, 40)
    ) {
        for y in 0..<height {
            for x in 0..<width {
                let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                guard points.contains(where: { (($0 - p) * ($0 - p)).sum() < radius * radius }) else { continue }
                let offset = 3 * (y * width + x), grain = UInt8((x * 7 + y * 13) % 9)
                (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = (
                    UInt8(colour.0) + grain, UInt8(colour.1) + grain, UInt8(colour.2) + grain
                )
            }
        }
    }

    /// A Classic Mini's patches, 0.76 of the step: found, and its measured patch size is the
    /// Mini's (the outlines drawn with the Classic's 0.86 would overrun each patch).
    @Test func findsAClassicMiniAndMeasuresItsPatches() throws {
        var pixels = Self.frame()
        let corners = ChartDrawing.corners(center: SIMD2(600, 380), chartWidth: 380, roll: 115, keystone: 0.1)
        ChartDrawing.draw(into: &pixels, width: Self.width, height: Self.height, corners: corners, patchFraction: 0.76)
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "Mini")
        #expect(abs(chart.patchFraction - 0.76) < 0.04, "patch fraction \(chart.patchFraction)")
    }

    /// A chart whose colours are far from the reference's (desaturated by half, each colour
    /// turned 40 degrees one way or the other, as a poor print: no 3x3 takes them back): its
    /// layout and grey ramp are certain, so it is found, with a colour difference over the
    /// limit (13 here; 0.1 for the reference's own colours) and a warning saying so.
    @Test func findsAChartOfOtherColoursAndWarns() throws {
        var pixels = Self.frame()
        let corners = ChartDrawing.corners(center: SIMD2(640, 360), chartWidth: 480, roll: 200, keystone: 0.1)
        let turned = ChartReference.colorChecker2014.lab.enumerated().map { index, lab in
            guard index < 18 else { return lab }
            let angle = (index % 2 == 0 ? 40 : -40) * Double.pi / 180
            let a = 0.5 * (lab.a * cos(angle) - lab.b * sin(angle)), b = 0.5 * (lab.a * sin(angle) + lab.b * cos(angle))
            return CIELab(l: lab.l, a: a, b: b)
        }
        ChartDrawing.draw(
            into: &pixels, width: Self.width, height: Self.height, corners: corners,
            reference: try ChartReference(name: "turned", lab: turned))
        let chart = try Self.detect(pixels)
        Self.expectCentres(chart, corners, "other colours")
        #expect(chart.colorDifference > DetectedChart.looseColors)
        #expect(chart.warnings.contains { $0.contains("fit the reference loosely") })
    }
}
