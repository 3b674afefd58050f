import Eyedropper
import EyedropperCalibration

/// What happens to a lent frame, once, for `eyedropper sample`, serve's capture loop and
/// `GET /api/v1/sample`: sample the points (and a white reference), calibrate them (with a
/// profile, corrected by the reference, and a target's ΔE and pass), name them from a palette,
/// check the frame against the profile, stamp its time, and give back a `Reading`. With `average`, frames are added up into
/// blocks and a reading is given per block.
///
/// Its storage (samples, calibrated samples, the block's totals, the sampler's buffer) is made
/// once and reused: a run's steady state allocates nothing while each reading is let go before
/// the next frame (one kept longer holds its arrays, which the next frame then copies).
public struct FramePipeline {
    public let points: [SamplePoint]
    public let radius: Int
    public let profile: CameraProfile?
    public let target: ColorTarget?
    /// A reference patch in view, read over its own window with the points in every frame (or
    /// block), that corrects the calibrated colours for the light's change since the profile was
    /// made. Its state (the spread it reads when uncovered) lives here, with the frames it reads.
    public private(set) var reference: WhiteReference?
    /// `--palette`: each sample is named by its nearest entry (by its calibrated colour with a
    /// profile, else by its camera colour read as sRGB).
    public let palette: PaletteSettings?
    /// Frames per block with `--average`; nil: a reading per frame.
    public let blockSize: Int?
    /// Whether frame timestamps are a camera driver's (the monotonic clock), for `FrameTime`.
    public let driverClock: Bool
    /// Which profile calibrates, as each reading says it.
    public let profileStamp: ProfileStamp?
    /// With a profile: the mismatches of the last frame read when they changed (empty when it now
    /// matches), nil when they did not; to be said once per change.
    public private(set) var warnings: [String]?
    private let sampler: ColorSampler
    /// The reference's point, alone: read at its own radius.
    private let referencePoints: [SamplePoint]
    /// The points' samples, then the reference's.
    private var samples: [ColorSample] = []
    private var referenceSamples: [ColorSample] = []
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
        profileStamp: ProfileStamp? = nil, sampler: ColorSampler = ColorSampler()
    ) {
        precondition(average.map { $0 >= 1 } ?? true, "a block of \(average ?? 0) frames")
        self.points = points
        self.radius = radius
        self.profile = profile
        self.target = profile == nil ? nil : target
        // The reference corrects what its own profile makes of the samples.
        self.reference = profile == nil ? nil : reference
        referencePoints = self.reference.map { [$0.point] } ?? []
        self.palette = palette
        blockSize = average
        self.driverClock = driverClock
        self.profileStamp = profile == nil ? nil : profileStamp
        self.sampler = sampler
        frameCheck = profile.map(CameraProfile.FrameCheck.init)
        block = SampleAverage(points: average == nil ? [] : points + referencePoints)
    }

    /// Reads frame `number`, taken at `timestamp` (seconds; the driver's for a camera): its
    /// reading, or with `average` the block's when this frame completes it or, having another
    /// colorimetry, closes the block before it (the frame then starts the next); nil while a
    /// block fills. Sets `warnings`.
    ///
    /// `referenceReading`: this frame's reading of the white reference, as another pipeline made
    /// it (serve's capture, for a request's own points on the same frame): calibrated with it
    /// rather than with a reading of this pipeline's, so both agree. Not with `average`.
    public mutating func read<Frame: SampleSource & ~Copyable>(
        _ frame: borrowing Frame, number: Int, timestamp: Double, referenceReading: ReferenceReading? = nil
    ) throws(SamplingError) -> Reading? {
        let colorimetry = frame.colorimetry, (width, height) = (frame.width, frame.height)
        warnings = frameCheck?.changed(colorimetry: colorimetry, width: width, height: height)
        try frame.sample(at: points, radius: radius, with: sampler, into: &samples)
        if let reference {
            try frame.sample(at: referencePoints, radius: reference.radius, with: sampler, into: &referenceSamples)
            samples.append(referenceSamples[0])
        }
        guard let blockSize else {
            let referenceStatistics = Self.takeReference(from: &samples, if: reference != nil)
            return reading(
                samples, referenceStatistics: referenceStatistics, given: referenceReading, frame: number, frames: nil,
                timestamp: timestamp, colorimetry: colorimetry, width: width, height: height)
        }
        precondition(referenceReading == nil, "a reference reading of another pipeline in a block")
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
            blockSamples, referenceStatistics: referenceStatistics, given: nil, frame: block.firstFrame, frames: block.frames,
            timestamp: block.firstTimestamp, colorimetry: colorimetry,
            width: blockSize2D.width, height: blockSize2D.height)
        block.reset()
        return reading
    }

    /// The reference's statistics, taken off the end of `samples` (keeping its capacity).
    private static func takeReference(from samples: inout [ColorSample], if read: Bool) -> PatchStatistics? {
        read ? samples.removeLast().statistics : nil
    }

    /// Calibrates `samples`, corrected by the reference's reading of the same frame (`given`, or
    /// this pipeline's of `referenceStatistics`), and stamps them.
    private mutating func reading(
        _ samples: [ColorSample], referenceStatistics: PatchStatistics?, given: ReferenceReading?, frame: Int, frames: Int?,
        timestamp: Double, colorimetry: Colorimetry, width: Int, height: Int
    ) -> Reading {
        let referenceReading = given ?? referenceStatistics.flatMap { reference?.assess($0) }
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
            names: names, palette: palette, profile: profileStamp)
    }
}
