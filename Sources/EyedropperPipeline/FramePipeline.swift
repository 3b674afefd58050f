import Eyedropper
import EyedropperCalibration

/// What happens to a lent frame, once, for `eyedropper sample`, serve's capture loop and
/// `GET /api/v1/sample`: sample the points, calibrate them (with a profile, and a target's ΔE and
/// pass), check the frame against the profile, stamp its time, and give back a `Reading`. With
/// `average`, frames are added up into blocks and a reading is given per block.
///
/// Its storage (samples, calibrated samples, the block's totals, the sampler's buffer) is made
/// once and reused: a run's steady state allocates nothing but the reading's JSON line.
public struct FramePipeline {
    public let points: [SamplePoint]
    public let radius: Int
    public let profile: CameraProfile?
    public let target: ColorTarget?
    /// Frames per block with `--average`; nil: a reading per frame.
    public let blockSize: Int?
    /// Whether frame timestamps are a camera driver's (the monotonic clock), for `FrameTime`.
    public let driverClock: Bool
    /// With a profile: the mismatches of the last frame read when they changed (empty when it now
    /// matches), nil when they did not; to be said once per change.
    public private(set) var warnings: [String]?
    private let sampler: ColorSampler
    private var samples: [ColorSample] = []
    /// A block's samples: apart from `samples`, which the frame that closes a block holds.
    private var blockSamples: [ColorSample] = []
    private var calibrated: [CalibratedSample] = []
    private var frameCheck: CameraProfile.FrameCheck?
    private var block: SampleAverage
    /// The size of the block's first frame.
    private var blockSize2D = (width: 0, height: 0)

    public init(
        points: [SamplePoint], radius: Int, profile: CameraProfile? = nil, target: ColorTarget? = nil,
        average: Int? = nil, driverClock: Bool, sampler: ColorSampler = ColorSampler()
    ) {
        precondition(average.map { $0 >= 1 } ?? true, "a block of \(average ?? 0) frames")
        self.points = points
        self.radius = radius
        self.profile = profile
        self.target = profile == nil ? nil : target
        blockSize = average
        self.driverClock = driverClock
        self.sampler = sampler
        frameCheck = profile.map(CameraProfile.FrameCheck.init)
        block = SampleAverage(points: average == nil ? [] : points)
    }

    /// Reads frame `number`, taken at `timestamp` (seconds; the driver's for a camera): its
    /// reading, or with `average` the block's when this frame completes it or, having another
    /// colorimetry, closes the block before it (the frame then starts the next); nil while a
    /// block fills. Sets `warnings`.
    public mutating func read<Frame: SampleSource & ~Copyable>(
        _ frame: borrowing Frame, number: Int, timestamp: Double
    ) throws(SamplingError) -> Reading? {
        let colorimetry = frame.colorimetry, (width, height) = (frame.width, frame.height)
        warnings = frameCheck?.changed(colorimetry: colorimetry, width: width, height: height)
        try frame.sample(at: points, radius: radius, with: sampler, into: &samples)
        guard let blockSize else {
            return reading(
                samples, frame: number, frames: nil, timestamp: timestamp, colorimetry: colorimetry, width: width, height: height)
        }
        // A block holds one colorimetry: a change (a camera back with another) closes it early.
        var closed: Reading?
        if block.frames > 0, block.colorimetry != colorimetry { closed = finish() }
        if block.frames == 0 { blockSize2D = (width, height) }
        block.add(samples, frame: number, timestamp: timestamp, colorimetry: colorimetry)
        if closed == nil, block.frames == blockSize { return finish() }
        return closed
    }

    /// The block added up so far, if any (`average`), and starts the next: for the end of the
    /// source, a frame limit or Ctrl-C.
    public mutating func finish() -> Reading? {
        guard block.frames > 0, let colorimetry = block.colorimetry else { return nil }
        block.samples(into: &blockSamples)
        let reading = reading(
            blockSamples, frame: block.firstFrame, frames: block.frames, timestamp: block.firstTimestamp, colorimetry: colorimetry,
            width: blockSize2D.width, height: blockSize2D.height)
        block.reset()
        return reading
    }

    /// Calibrates `samples` and stamps them.
    private mutating func reading(
        _ samples: [ColorSample], frame: Int, frames: Int?, timestamp: Double, colorimetry: Colorimetry, width: Int, height: Int
    ) -> Reading {
        if let profile { profile.calibrate(samples, target: target, into: &calibrated) }
        return Reading(
            frame: frame, frames: frames, timestamp: timestamp,
            time: FrameTime.wallClock(timestamp: timestamp, fromDriver: driverClock), colorimetry: colorimetry,
            width: width, height: height, samples: samples, calibrated: calibrated)
    }
}
