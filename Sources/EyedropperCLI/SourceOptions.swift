import ArgumentParser
import Eyedropper
import EyedropperCapture
import Logging

/// Where frames come from and how to read their colours: shared by the commands that read frames.
/// The choices are made into a `FrameSource.Configuration`, and `FrameSource` does the rest.
struct SourceOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "/dev/videoN; rtsp://... or http://... (a network camera: RTSP, or MJPEG over HTTP); a .y4m file; - (YUV4MPEG2 on standard input, e.g. piped from ffmpeg -f yuv4mpegpipe); or 'testpattern' (default: the first camera, else the test pattern).",
            valueName: "SRC"))
    var source: String?

    @Option(
        help: ArgumentHelp("Frame size to ask a camera for, or of the test pattern (default 1280x720).", valueName: "WxH"),
        transform: FrameSize.parse)
    var size: FrameSize?

    @Option(help: "Frame rate to ask a camera for.")
    var fps: Double?

    @Option(
        name: .customLong("pixel-format"),
        help: ArgumentHelp(
            "Camera pixel format (YU12, YV12, NV12, NV21 are read in place; others, e.g. YUYV or MJPG, through libv4l2).",
            valueName: "FOURCC"))
    var pixelFormat: String?

    @Option(help: "Frames to drop first (default: 5 for a camera, settling its exposure; 0 otherwise).")
    var skip: Int?

    @Flag(
        help:
            "When the camera is unplugged, or a network camera's stream stops, wait for it to come back instead of stopping.")
    var reconnect = false

    @Option(
        help:
            "YCbCr matrix: auto (what the source reports: a camera's driver, a stream's own, a .y4m's XEYEDROPPER_MATRIX tag, else guessed from the height and said), bt601, bt709 or bt2020."
    )
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports; a .y4m's XCOLORRANGE tag, else limited, said), full or limited.")
    var range: RangeChoice = .auto

    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "A camera control to set as the camera opens, NAME=VALUE (repeatable, or NAME=VALUE,NAME=VALUE); `eyedropper controls` lists them.",
            valueName: "NAME=VALUE"))
    var controlSettings: [String] = []

    @Option(
        name: .customLong("controls"),
        help: ArgumentHelp(
            "A JSON file of camera controls to set, {\"name\": value, ...}, as `eyedropper controls --save FILE` writes it; --control wins over it.",
            valueName: "FILE"))
    var controlsFile: String?

    @Flag(
        help:
            "Let the camera's automatic exposure, white balance and gain settle during --skip, then switch them off at the values they settled on."
    )
    var lock = false

    @OptionGroup var diagnostics: LogOptions

    func validate() throws {
        if let skip, skip < 0 { throw ValidationError("--skip must be 0 or more, got \(skip)") }
        if let fps, !(fps > 0 && fps.isFinite) { throw ValidationError("--fps must be a positive number, got \(fps)") }
        for text in controlSettings {
            do { _ = try ControlSetting.parseList(text) } catch { throw ValidationError(error.description) }
        }
        if let source, SourceName(source) == nil {
            throw ValidationError(
                "--source \(source): give a capture device (/dev/videoN), a network camera (rtsp://HOST/PATH, or http://HOST/PATH for MJPEG), a .y4m file, - for YUV4MPEG2 on standard input, or 'testpattern'"
            )
        }
    }

    /// --source as named; nil when none was given.
    var sourceName: SourceName? { source.flatMap(SourceName.init) }

    /// The source these options describe. With no --source: `fallback`, or (nil) the first camera,
    /// else the test pattern, said on stderr.
    func configuration(
        fallback: SourceName? = nil, pacing: FrameSource.Configuration.Pacing = .asRead,
        reconnectPolicy: FrameSource.Configuration.ReconnectPolicy = .afterUnplug
    ) throws -> FrameSource.Configuration {
        var configuration = FrameSource.Configuration(
            source: sourceName ?? fallback
                ?? {
                    let chosen = SourceName.firstCameraOrTestPattern()
                    diagnostics.logger.info(
                        "no --source given: reading \(chosen == .testPattern ? "the built-in test pattern" : chosen.description)")
                    return chosen
                }())
        configuration.width = size?.width
        configuration.height = size?.height
        configuration.fps = fps
        configuration.pixelFormat = pixelFormat
        configuration.skip = skip
        configuration.reconnect = reconnect ? reconnectPolicy : .never
        configuration.matrix = matrix.matrix
        configuration.range = range.range
        configuration.pacing = pacing
        configuration.controls =
            try (controlsFile.map(Controls.settings(file:)) ?? [])
            + controlSettings.flatMap { try ControlSetting.parseList($0) }
        configuration.lock = lock
        return configuration
    }

    /// Lends each frame of `configuration`'s source (with the colorimetry to convert it with) and
    /// its timestamp to `body`, `limit` frames or until the source ends: a file or a pipe at its
    /// end, a camera never, the test pattern after one frame unless `limit` says more. Ctrl-C ends
    /// the stream after the current frame. A camera's closing count names what happened to frames
    /// as `done`. `record`: a `.y4m` each frame is written to as it was lent, before `body`, with
    /// its colorimetry, timestamp and the camera's controls (`Recording`), finished whatever ends
    /// the stream. `until`: true for the timestamp of the first frame not to read (`record
    /// --seconds`).
    func forEachFrame(
        _ configuration: FrameSource.Configuration, limit: Int?, done: String, record: String? = nil,
        until: ((Double) -> Bool)? = nil, _ body: (borrowing PlanarFrame, Double) throws -> Void
    ) throws {
        Interrupt.install()
        let logger = diagnostics.logger
        let source = try FrameSource(configuration, logger: logger, isStopped: { Interrupt.requested })
        let limit = limit ?? (configuration.source == .testPattern ? 1 : .max)
        let recording = record.map { Recording(path: $0, source: source) }
        var (count, ended) = (0, false)
        do {
            while count < limit, !Interrupt.requested, !ended,
                try source.next({ frame, timestamp in
                    if until?(timestamp) == true {
                        ended = true
                        return
                    }
                    try recording?.write(frame, timestamp: timestamp)
                    try body(frame, timestamp)
                })
            {
                if !ended { count += 1 }
            }
        } catch {
            // What was recorded up to the failure is kept: it may be what shows it.
            try? recording?.finish(logger: logger)
            throw error
        }
        try recording?.finish(logger: logger)
        if configuration.source.isLive {
            logger.info(
                "\(configuration.source): \(count) frames \(done), \(source.framesDropped) dropped (slower than the camera), \(source.framesDamaged) damaged (flagged by the driver)"
            )
        }
    }
}
