import Eyedropper
import EyedropperCalibration

/// What `FramePipeline` gives back for a frame (or a block of frames with `--average`): the
/// samples at the points, calibrated with a profile, stamped with the frame's number and times.
/// A value: every output renders its own payload from it when it needs one (the JSON line,
/// `json`; CSV and text, the command line's; OSC bundles; MQTT messages).
public struct Reading: Sendable {
    /// The frame's number; for a block, its first frame's.
    public let frame: Int
    /// The block's length with `--average`; nil for a single frame.
    public let frames: Int?
    /// Seconds: the driver's for a camera, from the frame rate for a file (the block's first).
    public let timestamp: Double
    /// When the frame was taken, in seconds since 1970 (UTC): `FrameTime.wallClock`.
    public let time: Double
    /// What the frame was converted with.
    public let colorimetry: Colorimetry
    /// The frame's size (the block's first frame's).
    public let width: Int
    public let height: Int
    /// The samples, in the order of the points.
    public let samples: [ColorSample]
    /// With a profile: one per sample, in order; empty without.
    public let calibrated: [CalibratedSample]
    /// With a white reference: what it read in this frame and what was applied.
    public let reference: ReferenceReading?
    /// With `--palette`: one per sample, in order; empty without.
    public let names: [NamedColor]
    /// The palette `names` index.
    public let palette: PaletteSettings?
    /// With a profile: which profile calibrated the samples, and the settings generation it was
    /// served in.
    public let profile: ProfileStamp?

    public init(
        frame: Int, frames: Int? = nil, timestamp: Double, time: Double, colorimetry: Colorimetry, width: Int, height: Int,
        samples: [ColorSample], calibrated: [CalibratedSample] = [], reference: ReferenceReading? = nil,
        names: [NamedColor] = [], palette: PaletteSettings? = nil, profile: ProfileStamp? = nil
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
        self.profile = profile
    }

    /// The JSON line, without its newline (`SampleJSON.object`): what `sample --format json`
    /// prints, the HTTP sample body, the SSE event's data and the MQTT payload. Made anew at each
    /// use: keep it where more than one output needs it.
    public var json: String { SampleJSON.object(self) }
}

/// Which profile calibrated a reading: `"profile":{"file":"A.json","generation":N}` in its line.
public struct ProfileStamp: Hashable, Sendable {
    /// The profile's file name, without its directory.
    public let file: String
    /// serve's settings generation the profile was served in (0 from the start, one more at each
    /// reload or profile applied); always 0 for `sample`.
    public let generation: Int
    /// `"profile":{...}` of the line, made once per profile served rather than once a frame.
    let json: String

    /// The stamp of the profile read from `path`.
    public init(path: String, generation: Int) {
        file = path.split(separator: "/").last.map(String.init) ?? path
        self.generation = generation
        json = #","profile":{"file":\#(JSONText.string(file)),"generation":\#(generation)}"#
    }
}
