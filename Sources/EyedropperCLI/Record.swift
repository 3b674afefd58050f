import ArgumentParser
import Eyedropper
import EyedropperCapture
import Logging

/// `eyedropper record`: what the camera gives, kept as a `.y4m` that reads back to the same lines.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the frames of a source to a .y4m file that reads back to the same samples.",
        discussion: """
            Writes each frame of SRC as it comes, its 4:2:0 planes unchanged, to --out (YUV4MPEG2, \
            written under a temporary name and renamed when done, so a failure or Ctrl-C leaves \
            either nothing or every whole frame recorded), until --frames, --seconds or Ctrl-C. \
            The header keeps the colorimetry (XCOLORRANGE, XEYEDROPPER_MATRIX) and a camera's \
            controls as they were read back at the open (XEYEDROPPER_CONTROLS=name:value,...); each \
            frame the time the source gave it (FRAME XEYEDROPPER_TIME=seconds). `eyedropper sample \
            --source FILE.y4m` then prints the lines a live `sample` printed for those frames, \
            byte for byte, timestamps included; `sample --record FILE.y4m` records while it \
            samples. ffmpeg, ffplay and mpv play the file as any other .y4m. Prints the path \
            written; how many frames, on stderr.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(help: ArgumentHelp("The file to write (.y4m).", valueName: "FILE.y4m"))
    var out: String

    @Option(help: "Stop after this many frames (default: until --seconds, the source's end or Ctrl-C; 1 of the test pattern).")
    var frames: Int?

    @Option(help: "Stop after this many seconds of the source's time.")
    var seconds: Double?

    func validate() throws {
        guard out.hasSuffix(".y4m") else { throw ValidationError("--out \(out): give a path ending in .y4m") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds must be a positive number, got \(seconds)") }
    }

    func run() throws {
        // The test pattern at its pace, so that its frames have times (--seconds).
        var configuration = try input.configuration()
        if configuration.source == .testPattern { configuration.pacing = .live }
        var first: Double?
        let limit = frames ?? (seconds == nil && configuration.source == .testPattern ? 1 : nil)
        let pastTheTime = { (timestamp: Double) -> Bool in
            guard let seconds else { return false }
            let start = first ?? timestamp
            first = start
            return timestamp - start >= seconds
        }
        try input.forEachFrame(configuration, limit: limit, done: "recorded", record: out, until: pastTheTime) { _, _ in }
        print(out)
    }
}

/// Frames written to a `.y4m` as a source lends them (`record`, `sample --record`): opened at
/// the first frame, with its size and colorimetry and the source's rate and controls. A frame of
/// another size or colorimetry (a camera back with other settings) ends the recording with an
/// error: one file has one of each.
final class Recording {
    let path: String
    private let source: FrameSource
    private var writer: Y4MWriter?
    private var colorimetry: Colorimetry?

    init(path: String, source: FrameSource) {
        self.path = path
        self.source = source
    }

    func write(_ frame: borrowing PlanarFrame, timestamp: Double) throws {
        let writer = try self.writer ?? open(frame)
        guard frame.width == writer.header.width, frame.height == writer.header.height, frame.colorimetry == colorimetry else {
            throw CommandFailure(
                "\(path): the source changed to \(frame.width)x\(frame.height) \(frame.colorimetry) after \(writer.framesWritten) frames of \(writer.header.width)x\(writer.header.height) \(colorimetry!): a recording keeps one; the frames before are kept",
                status: 74)
        }
        try writer.write(frame, time: timestamp)
    }

    private func open(_ frame: borrowing PlanarFrame) throws -> Y4MWriter {
        let writer = try Y4MWriter(
            path: path, width: frame.width, height: frame.height, colorimetry: frame.colorimetry,
            frameRate: Y4MFrameRate(fps: source.frameRate ?? FrameSource.Configuration.defaultLiveFPS), controls: source.controlValues)
        self.writer = writer
        colorimetry = frame.colorimetry
        return writer
    }

    /// Renames the file into place, saying how many frames it holds; nothing when no frame came.
    func finish(logger: Logger) throws {
        guard let writer else { return }
        self.writer = nil
        try writer.finish()
        logger.info("\(path): \(writer.framesWritten) frames recorded")
    }
}
