/// The statistics of each point over a block of consecutive frames: `eyedropper sample --average N`,
/// the way to see through sensor noise.
///
/// `add` merges one frame's samples (from `ColorSampler`, for the same points in the same order)
/// into the block; `samples(into:)` gives each point's sample over the block, its colour the
/// rounded mean of every patch pixel of every frame added; `reset` starts the next block. The
/// per-point totals are made in `init` and reused, so a run's steady state allocates nothing.
public struct SampleAverage {
    public let points: [SamplePoint]
    /// The frames added since the last reset.
    public private(set) var frames = 0
    /// The first frame of the block: its index and timestamp as given to `add`.
    public private(set) var firstFrame = 0
    public private(set) var firstTimestamp = 0.0
    /// The colorimetry the block's first frame was converted with.
    public private(set) var colorimetry: Colorimetry?
    private var totals: [PatchStatistics]

    public init(points: [SamplePoint]) {
        self.points = points
        totals = Array(repeating: PatchStatistics(), count: points.count)
    }

    /// Adds one frame's samples, one per point in the order of `points`.
    public mutating func add(_ samples: [ColorSample], frame: Int, timestamp: Double, colorimetry: Colorimetry) {
        precondition(samples.count == totals.count, "\(samples.count) samples for \(totals.count) points")
        if frames == 0 {
            (firstFrame, firstTimestamp, self.colorimetry) = (frame, timestamp, colorimetry)
        }
        for index in totals.indices {
            totals[index].merge(samples[index].statistics)
        }
        frames += 1
    }

    /// Replaces the contents of `samples` with each point's sample over the block, keeping its
    /// capacity.
    public func samples(into samples: inout [ColorSample]) {
        samples.removeAll(keepingCapacity: true)
        for index in totals.indices {
            samples.append(ColorSample(point: points[index], statistics: totals[index]))
        }
    }

    /// Empties the block.
    public mutating func reset() {
        frames = 0
        colorimetry = nil
        for index in totals.indices { totals[index] = PatchStatistics() }
    }
}
