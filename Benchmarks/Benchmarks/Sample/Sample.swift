// Eyedropper's ColorSampler: the per-frame cost of sampling points of a 1920x1080 I420 frame by
// each path, and the allocations per frame once the sampler and the output array are warm (0).
//
// Each fixture makes its frame, points, sampler and samples array in setup and samples once
// there, so the converter, the sampler's RGB buffer (full-frame path) and the array's capacity
// exist before the first measured iteration: the measured region is the steady state.
// Row names read "Sample_<width>x<height>_<n>-points[-radius-<r>]_<path>". No spaces or slashes:
// package-benchmark 1.38 looks thresholds up by the raw name (ordo-one/benchmark#301).
//
// Units: a direct (or automatic) sample costs tens of nanoseconds to a few microseconds, too
// close to the timer's cost for one call, so those rows sample the same frame 1000 times per
// iteration (scalingFactor .kilo) and read in ns per frame (the rows marked "*" are scaled to one
// frame). Full-frame rows convert a whole frame per iteration and read in µs per frame.
// Every iteration reads the same points, so the direct rows run with those pixels in cache: a
// fresh camera frame adds a few cache misses per point.

import Benchmark
import BenchmarkSupport
import Eyedropper

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .suite()

    let (width, height) = (1920, 1080)
    for count in [1, 10, 100] {
        sample(width: width, height: height, points: count, path: .direct)
        sample(width: width, height: height, points: count, path: .fullFrame)
        sample(width: width, height: height, points: count, path: .automatic)
    }
    // What users ask for: the mean of a 5x5 patch around each point.
    sample(width: width, height: height, points: 10, radius: 2, path: .direct)
}

// MARK: - Rows

func sample(width: Int, height: Int, points count: Int, radius: Int = 0, path: ColorSampler.Path) {
    let pathName = switch path {
    case .direct: "direct"
    case .fullFrame: "full-frame"
    case .automatic: "automatic"
    }
    let pointsName = "\(count)-points" + (radius == 0 ? "" : "-radius-\(radius)")
    let name = ["Sample", "\(width)x\(height)", pointsName, pathName].joined(separator: "_")
    // The full-frame path converts ~2 M pixels per frame: one frame per iteration is measurable.
    let configuration = path == .fullFrame
        ? Benchmark.Configuration(timeUnits: .microseconds, scalingFactor: .one)
        : Benchmark.Configuration(timeUnits: .nanoseconds, scalingFactor: .kilo)

    Benchmark(name, configuration: configuration) { (benchmark: Benchmark, fixture: SampleFixture) throws in
        for _ in benchmark.scaledIterations {
            try fixture.sampleOnce()
        }
        blackHole(fixture.samples)
    } setup: {
        let fixture = SampleFixture(
            width: width, height: height, points: count, radius: radius, path: path)
        // Warm the sampler (converter, RGB buffer) and the samples array's capacity.
        do {
            try fixture.sampleOnce()
        } catch {
            fatalError("cannot sample \(name): \(error)")
        }
        if fixture.samples.count != count { fatalError("\(name) returned \(fixture.samples.count) samples") }
        return fixture
    }
}

// MARK: - Fixture

/// A 1920x1080-style I420 frame of seeded random bytes (BT.709 limited), seeded points spread over
/// it, a warm sampler and the array it samples into.
final class SampleFixture {
    let frame: FrameBuffer
    let sampler: ColorSampler
    let points: [SamplePoint]
    let radius: Int
    let path: ColorSampler.Path
    var samples: [ColorSample] = []

    init(width: Int, height: Int, points count: Int, radius: Int, path: ColorSampler.Path) {
        frame = FrameContent.random.makeFrame(width: width, height: height, colorimetry: .bt709Limited)
        points = SplitMix64.samplePoints(count)
        sampler = ColorSampler(colorimetry: .bt709Limited)
        self.radius = radius
        self.path = path
    }

    @inline(__always)
    func sampleOnce() throws {
        try frame.withFrame { frame in
            try sampler.sample(frame, at: points, radius: radius, path: path, into: &samples)
        }
    }
}
