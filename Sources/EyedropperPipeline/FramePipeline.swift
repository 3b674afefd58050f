import Eyedropper
import EyedropperCalibration

/// What happens to a lent frame, once, for `eyedropper sample`, serve's capture loop and
/// `GET /api/v1/sample`: sample the points (and a white reference), calibrate them (with a
/// profile, corrected by the reference, and a target's ΔE and pass), name them from a palette,
/// check the frame against the profile, stamp its time, and give back a `Reading`. With `average`, frames are added up into
/// blocks and a reading is given per block.
///
/// Its storage (samples, calibrated samples, the block's totals, the sampler's buffer) is made
/// once and reused: a run's steady state allocates nothing but the reading's JSON line.
public struct FramePipeline {
    public let points: [SamplePoint]
    public let radius: Int
    public let profile: CameraProfile?
    public let target: ColorTarget?
    /// A reference patch in view, read with the points in every frame (or block), that corrects
    /// the calibrated colours for the light's change since the profile was made.
    public private(set) var reference: WhiteReference?
    /// `--palette`: each sample is named by its nearest entry (by its calibrated colour with a
    /// profile, else by its camera colour read as sRGB).
    public let palette: PaletteSettings?
    /// Frames per block with `--average`; nil: a reading per frame.
    public let blockSize: Int?
    /// Whether frame timestamps are a camera driver's (the monotonic clock), for `FrameTime`.
    public let driverClock: Bool
    /// With a profile: the mismatches of the last frame read when they changed (empty when it now
    /// matches), nil when they did not; to be said once per change.
    public private(set) var warnings: [String]?
    private let sampler: ColorSampler
    /// `points`, then the reference's point.
    private let samplePoints: [SamplePoint]
    private var samples: [ColorSample] = []
    /// A block's samples: apart from `samples`, which the frame that closes a block holds.
    private var blockSamples: [ColorSample] = []
    private var calibrated: [CalibratedSample] = []
    private var names: [NamedColor] = []
    private var frameCheck: CameraProfile.FrameCheck?
    private var block: SampleAverage
    /// The size of the block's first frame.
    private var blockSize2D = (width: 0, height: 0)

    public init(
        points: [SamplePoint], radius: Int, profile: CameraProfile? = nil, target: ColorTarget? = nil,
        reference: WhiteReference? = nil, palette: PaletteSettings? = nil, average: Int? = nil, driverClock: Bool,
        sampler: ColorSampler = ColorSampler()
    ) {
        precondition(average.map { $0 >= 1 } ?? true, "a block of \(average ?? 0) frames")
        self.points = points
        self.radius = radius
        self.profile = profile
        self.target = profile == nil ? nil : target
        // The reference corrects what its own profile makes of the samples.
        self.reference = profile == nil ? nil : reference
        samplePoints = points + (self.reference.map { [$0.point] } ?? [])
        self.palette = palette
        blockSize = average
        self.driverClock = driverClock
        self.sampler = sampler
        frameCheck = profile.map(CameraProfile.FrameCheck.init)
        block = SampleAverage(points: average == nil ? [] : samplePoints)
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
        try frame.sample(at: samplePoints, radius: radius, with: sampler, into: &samples)
        guard let blockSize else {
            let referenceStatistics = Self.takeReference(from: &samples, if: reference != nil)
            return reading(
                samples, referenceStatistics: referenceStatistics, frame: number, frames: nil, timestamp: timestamp,
                colorimetry: colorimetry, width: width, height: height)
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
        let referenceStatistics = Self.takeReference(from: &blockSamples, if: reference != nil)
        let reading = reading(
            blockSamples, referenceStatistics: referenceStatistics, frame: block.firstFrame, frames: block.frames,
            timestamp: block.firstTimestamp, colorimetry: colorimetry,
            width: blockSize2D.width, height: blockSize2D.height)
        block.reset()
        return reading
    }

    /// The reference's statistics, taken off the end of `samples` (keeping its capacity).
    private static func takeReference(from samples: inout [ColorSample], if read: Bool) -> PatchStatistics? {
        read ? samples.removeLast().statistics : nil
    }

    /// Calibrates `samples`, corrected by the reference's reading of the same frame, and stamps them.
    private mutating func reading(
        _ samples: [ColorSample], referenceStatistics: PatchStatistics?, frame: Int, frames: Int?, timestamp: Double,
        colorimetry: Colorimetry, width: Int, height: Int
    ) -> Reading {
        let referenceReading = referenceStatistics.flatMap { reference?.assess($0) }
        if let profile { profile.calibrate(samples, target: target, reference: referenceReading, into: &calibrated) }
        names.removeAll(keepingCapacity: true)
        if let palette {
            for index in samples.indices {
                names.append(
                    index < calibrated.count
                        ? palette.name(calibrated[index].color.lab, calibrated: true)
                        : palette.name(PaletteSettings.cameraLab(samples[index].statistics.mean), calibrated: false))
            }
        }
        return Reading(
            frame: frame, frames: frames, timestamp: timestamp,
            time: FrameTime.wallClock(timestamp: timestamp, fromDriver: driverClock), colorimetry: colorimetry,
            width: width, height: height, samples: samples, calibrated: calibrated, reference: referenceReading,
            names: names, palette: palette)
    }
}
