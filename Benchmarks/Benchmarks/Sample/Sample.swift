// Eyedropper's ColorSampler: the per-frame cost of sampling points of a 1920x1080 I420 frame by
// each path, and the allocations per frame once the sampler and the output array are warm (0).
//
// Each fixture makes its frame, points, sampler and samples array in setup and samples once
// there, so the converter, the sampler's RGB buffer (full-frame path) and the array's capacity
// exist before the first measured iteration: the measured region is the steady state.
// Row names read "Sample_<width>x<height>_<n>-points[-radius-<r>][-average-<N>][-profile-target]_<path>";
// an -average-N row also adds each frame's samples into a block of N frames (`sample --average N`),
// a -profile-target row calibrates each sample and compares it with a target (`sample --profile
// --target`), and the Calibrate row does only that, per frame of 10 samples. No spaces or slashes:
// package-benchmark 1.38 looks thresholds up by the raw name (ordo-one/benchmark#301).
//
// Units: a direct (or automatic) sample costs tens of nanoseconds to a few microseconds, too
// close to the timer's cost for one call, so those rows sample the same frame 1000 times per
// iteration (scalingFactor .kilo) and read in ns per frame (the rows marked "*" are scaled to one
// frame). Full-frame rows convert a whole frame per iteration and read in µs per frame. An
// -average-N row samples one whole block of N frames per iteration and reads in µs per block:
// allocation counts are divided by the scaling factor, so at .kilo an allocation made once per
// block (33 in 1000 frames) would round to 0 and pass the threshold.
// Every iteration reads the same points, so the direct rows run with those pixels in cache: a
// fresh camera frame adds a few cache misses per point.

import Benchmark
import BenchmarkSupport
import Eyedropper
import EyedropperCalibration

#if canImport(Glibc)
    import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .suite()

    let (width, height) = (1920, 1080)
    for count in [1, 10, 100] {
        sample(width: width, height: height, points: count, path: .direct)
        sample(width: width, height: height, points: count, path: .fullFrame)
        sample(width: width, height: height, points: count, path: .automatic)
    }
    // What users ask for: the mean of a 5x5 patch around each point, with its statistics; and the
    // same added up into blocks of 30 frames, as `sample --average 30` does.
    sample(width: width, height: height, points: 10, radius: 2, path: .direct)
    sample(width: width, height: height, points: 10, radius: 2, average: 30, path: .direct)
    // With a camera profile and a target (`sample --profile --target`): the same 10 points, each
    // also calibrated and compared by CIEDE2000; and the calibration alone, ns per 10 samples.
    sample(width: width, height: height, points: 10, radius: 2, calibrated: true, path: .direct)
    calibrateOnly(width: width, height: height, points: 10, radius: 2)
    // And as `sample --profile --white-reference --palette` reads a frame: a white reference
    // sampled beside the points, its correction applied to each calibrated sample, and each named
    // from a palette of 1000 colours (µs per frame).
    sample(width: width, height: height, points: 10, radius: 2, calibrated: true, reference: true, palette: 1000, path: .direct)
    // Finding a ColorChecker with no corners given (`eyedropper chart`, `calibrate` without
    // --corner), ms per 1280x720 RGB frame: a 300 px chart rolled and tilted among coloured
    // squares, and the same frame without it (the whole search, nothing found).
    chartDetection(width: 1280, height: 720, chart: true)
    chartDetection(width: 1280, height: 720, chart: false)
    chartDetection(width: 1280, height: 720, chart: true, closeUp: true)
    chartDetection(width: 1920, height: 1080, chart: true)
    chartDetection(width: 1920, height: 1080, chart: false)
    chartDetection(width: 1920, height: 1080, chart: true, closeUp: true)
    // Naming colours (`Palette.match`, exact nearest and next by CIEDE2000), µs per 10 samples:
    // CSS's 148 named colours, and 1000 and 10000 seeded random colours; and at 1000, comparing
    // with every entry instead, the search's peer.
    paletteMatch(entries: 148)
    paletteMatch(entries: 1000)
    paletteMatch(entries: 1000, bruteForce: true)
    paletteMatch(entries: 10000)
}

// MARK: - Rows

func sample(
    width: Int, height: Int, points count: Int, radius: Int = 0, average: Int? = nil, calibrated: Bool = false,
    reference: Bool = false, palette: Int? = nil, path: ColorSampler.Path
) {
    let pathName =
        switch path {
        case .direct: "direct"
        case .fullFrame: "full-frame"
        case .automatic: "automatic"
        }
    let pointsName =
        "\(count)-points" + (radius == 0 ? "" : "-radius-\(radius)") + (average.map { "-average-\($0)" } ?? "")
        + (calibrated ? "-profile-target" : "") + (reference ? "-reference" : "") + (palette.map { "-palette-\($0)" } ?? "")
    let name = ["Sample", "\(width)x\(height)", pointsName, pathName].joined(separator: "_")
    // The full-frame path converts ~2 M pixels per frame: one frame per iteration is measurable.
    let configuration =
        path == .fullFrame || average != nil || palette != nil
        ? Benchmark.Configuration(timeUnits: .microseconds, scalingFactor: .one)
        : Benchmark.Configuration(timeUnits: .nanoseconds, scalingFactor: .kilo)
    let framesPerIteration = average ?? 1

    Benchmark(name, configuration: configuration) { (benchmark: Benchmark, fixture: SampleFixture) throws in
        for _ in benchmark.scaledIterations {
            for _ in 0..<framesPerIteration { try fixture.sampleOnce() }
        }
        blackHole(fixture.samples)
    } setup: {
        let fixture = SampleFixture(
            width: width, height: height, points: count, radius: radius, average: average, path: path,
            profile: calibrated ? benchmarkProfile : nil, content: reference ? .noisyPattern : .random)
        do {
            if reference { try fixture.addReference() }
            fixture.palette = try palette.map { try Palette(entries: paletteEntries($0)) }
        } catch {
            fatalError("cannot make \(name)'s reference or palette: \(error)")
        }
        // Warm the sampler (converter, RGB buffer) and the samples arrays' capacity (a whole block).
        do {
            for _ in 0..<(average ?? 1) { try fixture.sampleOnce() }
        } catch {
            fatalError("cannot sample \(name): \(error)")
        }
        if reference && fixture.referenceReading?.state != .ok || palette != nil && fixture.names.count != count {
            fatalError("\(name): the reference read \(String(describing: fixture.referenceReading?.state)), \(fixture.names.count) names")
        }
        if fixture.samples.count != count || average != nil && fixture.averaged.count != count
            || calibrated && fixture.calibrated.count != count
        {
            fatalError("\(name) returned \(fixture.samples.count) samples, \(fixture.averaged.count) averaged")
        }
        return fixture
    }
}

/// `CameraProfile.calibrate` alone on one frame's samples, with a target: what a profile and a
/// target add per frame.
func calibrateOnly(width: Int, height: Int, points count: Int, radius: Int) {
    let name = ["Calibrate", "\(width)x\(height)", "\(count)-points-radius-\(radius)-profile-target"].joined(separator: "_")
    let configuration = Benchmark.Configuration(timeUnits: .nanoseconds, scalingFactor: .kilo)
    Benchmark(name, configuration: configuration) { (benchmark: Benchmark, fixture: SampleFixture) in
        for _ in benchmark.scaledIterations {
            fixture.calibrateOnce()
        }
        blackHole(fixture.calibrated)
    } setup: {
        let fixture = SampleFixture(
            width: width, height: height, points: count, radius: radius, average: nil, path: .direct, profile: benchmarkProfile)
        do {
            try fixture.sampleOnce()
        } catch {
            fatalError("cannot sample \(name): \(error)")
        }
        return fixture
    }
}

/// `ChartDetector.detect` on one RGB frame per iteration: a chart 300 pixels wide in 720p (450
/// in 1080p), none, or (`closeUp`) one filling most of the frame, as a chart held up to a webcam.
func chartDetection(width: Int, height: Int, chart: Bool, closeUp: Bool = false) {
    let name = ["Chart", "\(width)x\(height)", chart ? (closeUp ? "detect-close-up" : "detect") : "detect-no-chart"]
        .joined(separator: "_")
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, scalingFactor: .one)
    Benchmark(name, configuration: configuration) { (benchmark: Benchmark, fixture: ChartFixture) in
        for _ in benchmark.scaledIterations { fixture.detectOnce() }
        blackHole(fixture.detector.chart.confidence)
    } setup: {
        let fixture = ChartFixture(width: width, height: height, chart: chart, closeUp: closeUp)
        // Warm the detector's buffers, and check the frame is what the row says it is.
        if fixture.detectOnce() != chart { fatalError("\(name): the chart was \(chart ? "not " : "")found") }
        return fixture
    }
}

/// A grey frame with seeded noise and coloured squares the size of the chart's patches, with
/// (or without) the chart drawn in it, and a detector.
final class ChartFixture {
    let pixels: [UInt8]
    let width: Int
    let height: Int
    let detector = ChartDetector()

    init(width: Int, height: Int, chart: Bool, closeUp: Bool = false) {
        var random = SplitMix64(seed: 24)
        var pixels = (0..<(3 * width * height)).map { _ in UInt8(114 + random.next() % 9) }
        for _ in 0..<60 {
            let x = Int(random.next() % UInt64(width - 40)), y = Int(random.next() % UInt64(height - 40))
            let color = (
                UInt8(truncatingIfNeeded: random.next()), UInt8(truncatingIfNeeded: random.next()), UInt8(truncatingIfNeeded: random.next())
            )
            for dy in 0..<30 {
                for dx in 0..<30 {
                    let offset = 3 * ((y + dy) * width + x + dx)
                    (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = color
                }
            }
        }
        if chart {
            // A close-up chart 0.8 of the frame's height tall (rolled, so wider than that).
            let chartWidth = closeUp ? 0.8 * Double(height) * 280 / 216 : 300 * Double(width) / 1280
            let corners = ChartDrawing.corners(
                center: SIMD2(Double(width) * 0.5, Double(height) * 0.5), chartWidth: chartWidth, roll: closeUp ? 4 : 33,
                keystone: closeUp ? 0.05 : 0.15)
            ChartDrawing.draw(into: &pixels, width: width, height: height, corners: corners)
        }
        self.pixels = pixels
        self.width = width
        self.height = height
    }

    /// Whether the chart was found.
    @discardableResult @inline(__always)
    func detectOnce() -> Bool {
        pixels.withUnsafeBytes { bytes in
            do {
                try detector.detect(rgb24: bytes, width: width, height: height)
                return true
            } catch {
                return false
            }
        }
    }
}

/// A root-polynomial profile (the dearest correction to apply) of a camera that sees the chart
/// as its sRGB colours, and a mid-grey target: made once, in the first setup that needs it.
let benchmarkProfile: (profile: CameraProfile, target: ColorTarget) = {
    let readings = ChartReference.colorChecker2014.lab.map { lab in
        PatchStatistics(CalibratedColor(xyz: CIEXYZ(lab, white: .d50)).srgb8)
    }
    do {
        let calibration = try Calibration(readings: readings, model: .rootPolynomial)
        let geometry = try ChartGeometry(
            corners: [
                try SamplePoint(x: 0.1, y: 0.1), try SamplePoint(x: 0.9, y: 0.1), try SamplePoint(x: 0.9, y: 0.9),
                try SamplePoint(x: 0.1, y: 0.9),
            ],
            width: 1920, height: 1080)
        let report = CalibrationReport(calibration, geometry: geometry, radius: 2, frames: 1, modelAsked: true)
        let profile = CameraProfile(
            calibration: calibration, report: report, colorimetry: .bt709Limited, width: 1920, height: 1080, controls: [:])
        return (profile, ColorTarget(lab: CIELab(l: 50, a: 0, b: 0)))
    } catch {
        fatalError("cannot make the benchmark's profile: \(error)")
    }
}()

// MARK: - Fixture

/// A 1920x1080-style I420 frame of seeded random bytes (BT.709 limited), seeded points spread over
/// it, a warm sampler and the array it samples into; with `average`, the block the samples are
/// added to and the array a finished block is read into.
final class SampleFixture {
    let frame: FrameBuffer
    let sampler: ColorSampler
    let points: [SamplePoint]
    let radius: Int
    let average: Int?
    let path: ColorSampler.Path
    var samples: [ColorSample] = []
    var block: SampleAverage
    var averaged: [ColorSample] = []
    /// With a profile: it, its target, and the calibrated samples of each frame.
    let profile: (profile: CameraProfile, target: ColorTarget)?
    var calibrated: [CalibratedSample] = []
    /// A white reference read beside the points (after them), and what it read.
    private(set) var reference: WhiteReference?
    private(set) var referenceReading: ReferenceReading?
    private var readPoints: [SamplePoint]
    /// A palette each calibrated sample is named from, and the names.
    var palette: Palette?
    var names: [PaletteMatch] = []
    private var frameIndex = 0

    init(
        width: Int, height: Int, points count: Int, radius: Int, average: Int?, path: ColorSampler.Path,
        profile: (profile: CameraProfile, target: ColorTarget)? = nil, content: FrameContent = .random
    ) {
        self.profile = profile
        frame = content.makeFrame(width: width, height: height, colorimetry: .bt709Limited)
        points = SplitMix64.samplePoints(count)
        readPoints = points
        sampler = ColorSampler(colorimetry: .bt709Limited)
        block = SampleAverage(points: points)
        self.radius = radius
        self.average = average
        self.path = path
    }

    @inline(__always)
    func sampleOnce() throws {
        try frame.withFrame { frame in
            try sampler.sample(frame, at: readPoints, radius: radius, path: path, into: &samples)
        }
        if reference != nil { referenceReading = reference?.assess(samples.removeLast().statistics) }
        calibrateOnce()
        if let palette {
            names.removeAll(keepingCapacity: true)
            for sample in calibrated {
                let lab = sample.color.lab
                names.append(palette.match(SIMD3(lab.l, lab.a, lab.b)))
            }
        }
        guard let average else { return }
        block.add(samples, frame: frameIndex, timestamp: 0, colorimetry: .bt709Limited)
        frameIndex += 1
        if block.frames == average {
            block.samples(into: &averaged)
            block.reset()
        }
    }

    @inline(__always)
    func calibrateOnce() {
        guard let profile else { return }
        profile.profile.calibrate(samples, target: profile.target, reference: referenceReading, into: &calibrated)
    }

    /// Reads the test pattern's white bar once and records it in the profile as its white
    /// reference, so each frame's reading of it is applied (the same frame: state ok).
    func addReference() throws {
        guard let profile else { return }
        let point = try SamplePoint(x: 0.0625, y: 0.25)
        var patch: [ColorSample] = []
        try frame.withFrame { try sampler.sample($0, at: [point], radius: radius, path: path, into: &patch) }
        let recorded = profile.profile.recordingWhiteReference(at: point, radius: radius, statistics: patch[0].statistics)
        reference = try WhiteReference(profile: recorded, point: point)
        readPoints = points + [point]
    }
}

/// `Palette.match` for the 10 ColorChecker colours of patches 1-10 (camera-like colours, none an
/// entry) per iteration. 148 entries: CSS Color 4's named colours (the values of
/// Packaging/palettes/css-named-colors.json, kept here so the row needs no file); otherwise
/// seeded random colours, L* in 0...100, chroma up to 130 (denser near grey).
func paletteMatch(entries count: Int, bruteForce: Bool = false) {
    let name = ["Palette", "\(count)-entries", "10-samples"].joined(separator: "_") + (bruteForce ? "_brute-force" : "")
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, scalingFactor: .one)
    let palette: Palette
    do {
        palette = try Palette(entries: paletteEntries(count))
    } catch {
        fatalError("\(name): \(error)")
    }
    let queries = ChartReference.colorChecker2014.lab.prefix(10).map { SIMD3($0.l, $0.a, $0.b) }
    Benchmark(name, configuration: configuration) { benchmark in
        var total = 0.0
        for _ in benchmark.scaledIterations {
            for query in queries {
                total += bruteForce ? palette.matchByBruteForce(query).deltaE : palette.match(query).deltaE
            }
        }
        blackHole(total)
    }
}

private func paletteEntries(_ count: Int) -> [Palette.Entry] {
    if count == cssNamedColours.count {
        return cssNamedColours.enumerated().map { index, hex in
            let lab = try! ColorTarget(parsing: "#" + hex).lab
            return Palette.Entry(name: "css\(index)", lab: SIMD3(lab.l, lab.a, lab.b))
        }
    }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // xorshift64*, seeded: the same palette every run
    func unit() -> Double {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Double((state &* 2_685_821_657_736_338_717) >> 11) / Double(1 << 53)
    }
    return (0..<count).map { index in
        let l = 100 * unit(), chroma = 130 * unit().squareRoot(), hue = 2 * Double.pi * unit()
        return Palette.Entry(name: "c\(index)", lab: SIMD3(l, chroma * cos(hue), chroma * sin(hue)))
    }
}

/// CSS Color 4's 148 named colours as sRGB hex, in the order of their names.
private let cssNamedColours = [
    "f0f8ff faebd7 00ffff 7fffd4 f0ffff f5f5dc ffe4c4 000000 ffebcd 0000ff 8a2be2 a52a2a",
    "deb887 5f9ea0 7fff00 d2691e ff7f50 6495ed fff8dc dc143c 00ffff 00008b 008b8b b8860b",
    "a9a9a9 006400 a9a9a9 bdb76b 8b008b 556b2f ff8c00 9932cc 8b0000 e9967a 8fbc8f 483d8b",
    "2f4f4f 2f4f4f 00ced1 9400d3 ff1493 00bfff 696969 696969 1e90ff b22222 fffaf0 228b22",
    "ff00ff dcdcdc f8f8ff ffd700 daa520 808080 008000 adff2f 808080 f0fff0 ff69b4 cd5c5c",
    "4b0082 fffff0 f0e68c e6e6fa fff0f5 7cfc00 fffacd add8e6 f08080 e0ffff fafad2 d3d3d3",
    "90ee90 d3d3d3 ffb6c1 ffa07a 20b2aa 87cefa 778899 778899 b0c4de ffffe0 00ff00 32cd32",
    "faf0e6 ff00ff 800000 66cdaa 0000cd ba55d3 9370db 3cb371 7b68ee 00fa9a 48d1cc c71585",
    "191970 f5fffa ffe4e1 ffe4b5 ffdead 000080 fdf5e6 808000 6b8e23 ffa500 ff4500 da70d6",
    "eee8aa 98fb98 afeeee db7093 ffefd5 ffdab9 cd853f ffc0cb dda0dd b0e0e6 800080 663399",
    "ff0000 bc8f8f 4169e1 8b4513 fa8072 f4a460 2e8b57 fff5ee a0522d c0c0c0 87ceeb 6a5acd",
    "708090 708090 fffafa 00ff7f 4682b4 d2b48c 008080 d8bfd8 ff6347 40e0d0 ee82ee f5deb3",
    "ffffff f5f5f5 ffff00 9acd32",
].flatMap { $0.split(separator: " ").map(String.init) }
