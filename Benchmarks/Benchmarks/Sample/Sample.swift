// Eyedropper's ColorSampler: the per-frame cost of sampling points of a 1920x1080 I420 frame by
// each path, and the allocations per frame once the sampler and the output array are warm (0).
//
// Each fixture makes its frame, points, sampler and samples array in setup and samples once
// there, so the converter, the sampler's RGB buffer (full-frame path) and the array's capacity
// exist before the first measured iteration: the measured region is the steady state.
// Row names read "Sample_<width>x<height>_<n>-points[-radius-<r>][-average-<N>]_<path>"; an
// -average-N row also adds each frame's samples into a block of N frames (`sample --average N`). No spaces or slashes:
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
}

// MARK: - Rows

func sample(width: Int, height: Int, points count: Int, radius: Int = 0, average: Int? = nil, path: ColorSampler.Path) {
    let pathName = switch path {
    case .direct: "direct"
    case .fullFrame: "full-frame"
    case .automatic: "automatic"
    }
    let pointsName = "\(count)-points" + (radius == 0 ? "" : "-radius-\(radius)") + (average.map { "-average-\($0)" } ?? "")
    let name = ["Sample", "\(width)x\(height)", pointsName, pathName].joined(separator: "_")
    // The full-frame path converts ~2 M pixels per frame: one frame per iteration is measurable.
    let configuration = path == .fullFrame || average != nil
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
            width: width, height: height, points: count, radius: radius, average: average, path: path)
        // Warm the sampler (converter, RGB buffer) and the samples arrays' capacity (a whole block).
        do {
            for _ in 0..<(average ?? 1) { try fixture.sampleOnce() }
        } catch {
            fatalError("cannot sample \(name): \(error)")
        }
        if fixture.samples.count != count || average != nil && fixture.averaged.count != count {
            fatalError("\(name) returned \(fixture.samples.count) samples, \(fixture.averaged.count) averaged")
        }
        return fixture
    }
}

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
    private var frameIndex = 0

    init(width: Int, height: Int, points count: Int, radius: Int, average: Int?, path: ColorSampler.Path) {
        frame = FrameContent.random.makeFrame(width: width, height: height, colorimetry: .bt709Limited)
        points = SplitMix64.samplePoints(count)
        sampler = ColorSampler(colorimetry: .bt709Limited)
        block = SampleAverage(points: points)
        self.radius = radius
        self.average = average
        self.path = path
    }

    @inline(__always)
    func sampleOnce() throws {
        try frame.withFrame { frame in
            try sampler.sample(frame, at: points, radius: radius, path: path, into: &samples)
        }
        guard let average else { return }
        block.add(samples, frame: frameIndex, timestamp: 0, colorimetry: .bt709Limited)
        frameIndex += 1
        if block.frames == average {
            block.samples(into: &averaged)
            block.reset()
        }
    }
}
