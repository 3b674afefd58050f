import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperOutputs
import EyedropperPipeline
import Hummingbird

/// The body of `/api/v1/status`, and the figures `/metrics` gives in Prometheus' text format.
struct StatusReport: Codable, Hashable, Sendable, ResponseEncodable {
    struct Percentiles: Codable, Hashable, Sendable {
        let p50: Double
        let p90: Double
        let p99: Double
        let max: Double
    }

    let source: String
    /// "running", or "failed" while the source is failing.
    let state: String
    let error: String?
    /// E.g. "1280x720 NV12 read in place".
    let format: String?
    let matrix: YCbCrMatrix?
    let range: ColorRange?
    let framesCaptured: Int
    let framesDropped: Int
    let framesEncoded: Int
    let frameRate: Double
    /// Milliseconds to convert a frame to RGB, over the last frames, to the nanosecond (a fast
    /// conversion takes a few microseconds: to the microsecond would leave one digit).
    let conversionMilliseconds: Percentiles?
    let streamClients: Int
    /// The settings' generation: 0 from the start, one more at each reload or profile applied
    /// from the page. Readings made with it or later name it (`"profile":{..,"generation":N}`).
    let generation: Int
    // For the page and for scripts that watch a camera's settings:
    /// The `--at` points, `[x, y]` each: where the event stream samples.
    let points: [[Double]]
    /// The camera control settings kept and applied at every open (`--control`, `--controls`,
    /// `--lock`, and those made through the API since), name -> value as given; `{}` for a source
    /// that is not a camera.
    let controls: [String: String]
    /// Where the driver kept another value than the one asked, at the last time settings were
    /// applied.
    let controlWarnings: [String]
    // Present only with --profile (and --target):
    /// The camera profile the samples are calibrated with.
    let profile: Profile?
    /// What the calibrated samples are compared with.
    let target: Target?
    /// Present only with --white-reference: the patch, what it should read, and the last
    /// frame's reading of it.
    let reference: Reference?
    /// Present only with --palette: the named colours samples are matched with.
    let palette: PaletteStatus?
    // The connections cut off by timeouts:
    /// Responses cut off since the start because their client took nothing for --stall-timeout
    /// (stream clients, nearly always); each freed its stream place.
    let stalledStreamsClosed: Int
    /// Connections cut off since the start because a request head was not complete within
    /// --header-timeout of its first byte.
    let headerTimeouts: Int
    // Present only with --mqtt:
    /// The broker (without its password), the topic prefix, whether it is connected, and the
    /// lines published, dropped from a full queue, and waiting.
    let mqtt: MQTTPublisher.Status?
    // Present only with --osc:
    /// The peer, and the bundles sent to it and those the system would not take.
    let osc: OSC?
    // Present only after a reload (SIGHUP):
    /// When serve last reloaded, and what it could not load.
    let reload: ReloadReport?

    struct OSC: Codable, Hashable, Sendable {
        /// The peer as `--osc` gave it, HOST:PORT.
        let peer: String
        let sent: Int
        let failed: Int
    }

    struct Profile: Codable, Hashable, Sendable {
        /// The file, as given.
        let path: String
        /// When it was made, ISO 8601 UTC.
        let created: String
        /// Its correction, e.g. "root-polynomial-2".
        let model: CorrectionModel
        /// The colorimetry and size of the frames it was made from.
        let matrix: YCbCrMatrix
        let range: ColorRange
        let width: Int
        let height: Int
        /// Where the frames now differ from those, each a sentence; `[]` when they do not (or
        /// before the first frame).
        let warnings: [String]
    }

    struct PaletteStatus: Codable, Hashable, Sendable {
        /// The file, as given.
        let path: String
        let entries: Int
        /// Distinct colours (names that share one count once).
        let colours: Int
        /// "calibrated" with a profile, else "camera" (the camera's colour read as sRGB).
        let of: String
        let maxDeltaE: Double?
    }

    struct Reference: Codable, Hashable, Sendable {
        let x: Double
        let y: Double
        /// Where what it should read comes from: "profile" (recorded by calibrate) or "lab"
        /// (--white-reference-lab); null when the profile served cannot take the reference.
        let recorded: String?
        /// "bradford" or "diagonal".
        let model: String
        /// --max-drift, when given.
        let maxDrift: Double?
        /// What it should read, L*a*b* (D50), 2 decimals; absent when it cannot be read.
        let lab: [Double]?
        /// The last frame's CIEDE2000 from that (2 decimals), its gains (4) and whether it was
        /// applied, and its state; null, null, false, null before a frame or without the reference.
        let deltaE: Double?
        let gains: [Double]?
        let applied: Bool
        let state: String?
        /// Why the readings are not corrected now, when they are not.
        let why: String?

        init(settings: WhiteReferenceSettings, reference: Result<WhiteReference, WhiteReferenceError>, last: ReferenceReading?) {
            x = settings.point.x
            y = settings.point.y
            model = settings.model.rawValue
            maxDrift = settings.maxDrift
            switch reference {
            case .success(let reference):
                recorded = reference.recorded.rawValue
                let expected = reference.expectedLab
                lab = [expected.l, expected.a, expected.b].map { ($0 * 100).rounded() / 100 }
            case .failure:
                (recorded, lab) = (nil, nil)
            }
            let reading = (try? reference.get()) == nil ? nil : last
            deltaE = reading.flatMap { $0.deltaE.isFinite ? ($0.deltaE * 100).rounded() / 100 : nil }
            gains = reading.map { [$0.gains.x, $0.gains.y, $0.gains.z].map { ($0 * 10000).rounded() / 10000 } }
            applied = reading?.applied ?? false
            state = reading?.state.rawValue
            why =
                switch (reference, reading?.state) {
                case (.failure(let error), _): "\(error)"
                case (_, nil): "no frame read with the reference yet"
                case (_, .clipped?): "the patch clips (channel values at 0 or 255): readings uncorrected"
                case (_, .covered?): "the patch is covered (its spread jumped): readings uncorrected"
                case (_, .dark?): "the patch is too dark to scale by: readings uncorrected"
                case (_, .implausible?): "the patch reads as a colour change no light gives: readings uncorrected"
                case (_, .drift?): "the light moved further than --max-drift: readings corrected, but by more than that"
                case (_, .ok?): nil
                }
        }

        enum CodingKeys: String, CodingKey {
            case x, y, recorded, model, maxDrift, lab, deltaE, gains, applied, state, why
        }

        /// `recorded`, `deltaE`, `gains` and `state` as null rather than absent: their place is
        /// part of the object's shape.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(x, forKey: .x)
            try container.encode(y, forKey: .y)
            try container.encode(recorded, forKey: .recorded)
            try container.encode(model, forKey: .model)
            try container.encodeIfPresent(maxDrift, forKey: .maxDrift)
            try container.encodeIfPresent(lab, forKey: .lab)
            try container.encode(deltaE, forKey: .deltaE)
            try container.encode(gains, forKey: .gains)
            try container.encode(applied, forKey: .applied)
            try container.encode(state, forKey: .state)
            try container.encodeIfPresent(why, forKey: .why)
        }
    }

    struct Target: Codable, Hashable, Sendable {
        /// L*a*b* (D50), 2 decimals.
        let lab: [Double]
        /// Its sRGB colour (clamped when outside sRGB), for a swatch.
        let hex: String
        /// The largest CIEDE2000 that passes.
        let tolerance: Double
    }

    /// `settings` are those in use (generation `generation`); `last` the newest frame's reading,
    /// whose reference is shown when it was read with them.
    init(
        source: String, failure: String?, capture: CaptureStatistics.Snapshot, framesEncoded: Int, streamClients: Int,
        stalledStreamsClosed: Int, headerTimeouts: Int, points: [SamplePoint], controls: [ControlSetting], controlWarnings: [String],
        settings: ServeSettings, generation: Int = 0, last: FrameInfo? = nil, outputs: SampleOutputs? = nil,
        reload: ReloadReport? = nil
    ) {
        let profile = settings.profile
        self.generation = generation
        self.palette = settings.palette.map {
            PaletteStatus(
                path: $0.palette.path ?? "", entries: $0.palette.count, colours: $0.palette.colourCount,
                of: profile == nil ? "camera" : "calibrated", maxDeltaE: $0.maxDeltaE)
        }
        self.reload = reload
        mqtt = outputs?.mqtt?.status
        osc = outputs?.osc.map { sender in
            let counters = sender.counters
            return OSC(peer: sender.peer, sent: counters.sent, failed: counters.failed)
        }
        self.source = source
        state = failure == nil ? "running" : "failed"
        error = failure
        format = capture.stream
        matrix = capture.colorimetry?.matrix
        range = capture.colorimetry?.range
        framesCaptured = capture.framesCaptured
        framesDropped = capture.framesDropped
        self.framesEncoded = framesEncoded
        frameRate = (capture.frameRate * 100).rounded() / 100
        let milliseconds = capture.conversion.map { ($0.seconds * 1e9).rounded() / 1e6 }
        conversionMilliseconds =
            milliseconds.count == 4
            ? Percentiles(p50: milliseconds[0], p90: milliseconds[1], p99: milliseconds[2], max: milliseconds[3]) : nil
        self.streamClients = streamClients
        self.stalledStreamsClosed = stalledStreamsClosed
        self.headerTimeouts = headerTimeouts
        self.points = points.map { [$0.x, $0.y] }
        self.controls = Dictionary(controls.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        self.controlWarnings = controlWarnings
        self.profile = profile.map { Profile($0, warnings: capture.profileWarnings) }
        target = settings.target.map { target in
            let lab = target.lab
            return Target(
                lab: [lab.l, lab.a, lab.b].map { ($0 * 100).rounded() / 100 },
                hex: CalibratedColor(xyz: CIEXYZ(lab, white: .d50)).srgb8.hex, tolerance: target.tolerance)
        }
        // A reading of another generation's reference (the frame before a change) is not this one's.
        let lastReference = last.flatMap { $0.generation == generation ? $0.reading?.reading.reference : nil }
        reference = settings.options.reference.flatMap { options in
            settings.whiteReference.map { Reference(settings: options, reference: $0, last: lastReference) }
        }
    }
}
