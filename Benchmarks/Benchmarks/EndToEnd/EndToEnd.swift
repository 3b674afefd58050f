// A live colour picker's loop, end to end, on one thread: frames from the test-pattern source,
// each converted to RGB24 (ColorSampler.withRGB24, into the sampler's reused buffer), 10 points
// read from it, and every 30th frame also compressed to JPEG at quality 90 (JPEGEncoder): a
// preview once a second at 30 fps.
//
// One iteration is 30 frames, so every iteration does the same work and the percentiles mean
// something: frames per second are 30 x the throughput column (compare.sh prints them) and
// allocations per frame are mallocCountTotal / 30.
// Rows read "EndToEnd_<width>x<height>_<content>_30-frames" (no spaces or slashes:
// package-benchmark 1.38 looks thresholds up by the raw name, ordo-one/benchmark#301).
//
// The source renders its frame once and lends it again and again, as `eyedropper --source
// testpattern` does, so the frame is warm in the 32 MiB L3: a camera's frame arrives by DMA and
// is read from memory, which costs the conversion more (see the Convert suite's random frames).

import Benchmark
import BenchmarkSupport
import Eyedropper
import EyedropperCapture
import EyedropperJPEG

let benchmarks: @Sendable () -> Void = {
    // An iteration is 30 frames, several milliseconds: two seconds hold a few hundred.
    Benchmark.defaultConfiguration = .suite(maxDuration: .seconds(2), warmupIterations: 3)

    for (width, height) in [(1280, 720), (1920, 1080)] {
        for content in [FrameContent.pattern, .noisyPattern] {
            let name = ["EndToEnd", "\(width)x\(height)", content.rawValue, "\(Pipeline.framesPerJPEG)-frames"]
                .joined(separator: "_")
            Benchmark(name) { (_: Benchmark, pipeline: Pipeline) throws in
                for _ in 0..<Pipeline.framesPerJPEG {
                    try pipeline.nextFrame()
                }
                blackHole(pipeline.samples)
            } setup: {
                let pipeline = Pipeline(width: width, height: height, content: content)
                do {
                    // A whole cycle: the sampler's buffer, the samples' capacity and the
                    // encoder's output exist before the first measured frame.
                    for _ in 0..<Pipeline.framesPerJPEG {
                        try pipeline.nextFrame()
                    }
                } catch {
                    fatalError("\(name) failed in setup: \(error)")
                }
                if pipeline.samples.count != Pipeline.points.count || pipeline.jpegBytes == 0 {
                    fatalError("\(name): \(pipeline.samples.count) samples, a \(pipeline.jpegBytes)-byte JPEG")
                }
                return pipeline
            }
        }
    }

    // FrameSource, the way every command and the service read frames: the test pattern lent with
    // the override applied and 10 points sampled straight from the planes, 30 frames an
    // iteration. Its threshold holds the source's per-frame path to no allocation.
    Benchmark("EndToEnd_1920x1080_frame-source_30-frames") { (_: Benchmark, reader: SourceReader) throws in
        for _ in 0..<Pipeline.framesPerJPEG {
            try reader.nextFrame()
        }
        blackHole(reader.samples)
    } setup: {
        let reader = try SourceReader(width: 1920, height: 1080)
        try reader.nextFrame()
        guard reader.samples.count == Pipeline.points.count else { fatalError("frame-source: \(reader.samples.count) samples") }
        return reader
    }
}

/// A `FrameSource` on the test pattern (BT.709 limited, read as full range to exercise the
/// override) and a sampler taking the direct path.
final class SourceReader {
    let source: FrameSource
    let sampler = ColorSampler()
    private(set) var samples: [ColorSample] = []

    init(width: Int, height: Int) throws {
        var configuration = FrameSource.Configuration(source: .testPattern)
        (configuration.width, configuration.height) = (width, height)
        configuration.range = .full
        source = try FrameSource(configuration)
        samples.reserveCapacity(Pipeline.points.count)
    }

    @inline(__always)
    func nextFrame() throws {
        _ = try source.next { frame, _ in
            try sampler.sample(frame, at: Pipeline.points, path: .direct, into: &samples)
        }
    }
}

/// The source, the sampler, the encoder and the frame count of one running pipeline.
final class Pipeline {
    static let framesPerJPEG = 30
    static let points = SplitMix64.samplePoints(10)
    let source: FrameBuffer
    let sampler: ColorSampler
    let encoder: JPEGEncoder
    private(set) var samples: [ColorSample] = []
    private(set) var jpegBytes = 0
    private var frameNumber = 0

    init(width: Int, height: Int, content: FrameContent) {
        source = content.makeFrame(width: width, height: height)
        sampler = ColorSampler(colorimetry: source.colorimetry)
        do {
            encoder = try JPEGEncoder(quality: 90)
        } catch {
            fatalError("cannot make a JPEG encoder: \(error)")
        }
    }

    /// One frame through the pipeline: convert, sample, and on every 30th frame encode.
    @inline(__always)
    func nextFrame() throws {
        frameNumber += 1
        let encode = frameNumber % Self.framesPerJPEG == 0
        try source.withFrame { frame in
            try sampler.withRGB24(frame) { image in
                samples.removeAll(keepingCapacity: true)
                for point in Self.points {
                    let (x, y) = point.pixel(width: image.width, height: image.height)
                    samples.append(ColorSample(point: point, color: image.pixel(x, y)))
                }
                if encode {
                    jpegBytes = try encoder.withJPEG(rgb24: image.bytes, width: image.width, height: image.height) { $0.count }
                }
            }
        }
    }
}
