import Eyedropper
import EyedropperCalibration

/// What `FramePipeline` gives back for a frame (or a block of frames with `--average`): the
/// samples at the points, calibrated with a profile, stamped with the frame's number and times.
/// Every output renders its own payload from it: the JSON line (`json`), CSV and text (the
/// command line's), OSC bundles, MQTT messages.
public struct Reading {
    /// The frame's number; for a block, its first frame's.
    public var frame: Int
    /// The block's length with `--average`; nil for a single frame.
    public var frames: Int?
    /// Seconds: the driver's for a camera, from the frame rate for a file (the block's first).
    public var timestamp: Double
    /// When the frame was taken, in seconds since 1970 (UTC): `FrameTime.wallClock`.
    public var time: Double
    /// What the frame was converted with.
    public var colorimetry: Colorimetry
    /// The frame's size (the block's first frame's).
    public var width: Int
    public var height: Int
    /// The samples, in the order of the points.
    public var samples: [ColorSample]
    /// With a profile: one per sample, in order; empty without.
    public var calibrated: [CalibratedSample]
    /// With a white reference: what it read in this frame and what was applied.
    public var reference: ReferenceReading?
    /// With `--palette`: one per sample, in order; empty without.
    public var names: [NamedColor]
    /// The palette `names` index.
    public var palette: PaletteSettings?
    /// The JSON line, without its newline (`SampleJSON.object`): what `sample --format json`
    /// prints, the HTTP sample body, the SSE event's data and the MQTT payload. Made once per
    /// reading, as the one text every JSON consumer shares.
    public var json: String

    public init(
        frame: Int, frames: Int? = nil, timestamp: Double, time: Double, colorimetry: Colorimetry, width: Int, height: Int,
        samples: [ColorSample], calibrated: [CalibratedSample] = [], reference: ReferenceReading? = nil,
        names: [NamedColor] = [], palette: PaletteSettings? = nil
    ) {
        self.frame = frame
        self.frames = frames
        self.timestamp = timestamp
        self.time = time
        self.colorimetry = colorimetry
        self.width = width
        self.height = height
        self.samples = samples
        self.calibrated = calibrated
        self.reference = reference
        self.names = names
        self.palette = palette
        json = SampleJSON.object(
            frame: frame, frames: frames, timestamp: timestamp, colorimetry: colorimetry, samples: samples,
            calibrated: calibrated, reference: reference, names: names,
            palette: palette?.palette)
    }
}
