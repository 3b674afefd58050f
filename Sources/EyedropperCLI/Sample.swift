import ArgumentParser
import Eyedropper
#if canImport(Glibc)
import Glibc
#endif

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC, converts each to RGB with the matrix and range the source \
            reports (or --matrix / --range) and prints the colour at every --at point, for every \
            frame (or every Nth), until --frames or Ctrl-C. SRC is a capture device (/dev/videoN), \
            a .y4m file (YUV4MPEG2, 8-bit 4:2:0) or 'testpattern' (75% colour bars, a grey ramp \
            and a hue sweep). Default: the first capture device, or the test pattern when there \
            is none.

            --format json prints one object per frame and line: \
            {"frame":0,"timestamp":0.0,"matrix":"bt709","range":"limited","samples":[{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0"}]} \
            (frame counts from 0 after --skip; timestamp in seconds, the driver's for a camera). \
            --format csv prints a header row, then one row per point and frame, with HSV and \
            CIE L*a*b* (D65) besides RGB. --format text is for people: a colour swatch when \
            stdout is a terminal.
            """
    )

    @OptionGroup var input: SourceOptions

    @OptionGroup var sampling: PointOptions

    @Option(help: "Stop after this many frames (default: all of a file, 1 of the test pattern, a camera until Ctrl-C).")
    var frames: Int?

    @Option(help: ArgumentHelp("Print every Nth frame (frames 0, N, 2N, ...); the others are read but not sampled.", valueName: "N"))
    var every: Int = 1

    @Option(help: "json (one object per frame), csv (a header, then a row per point) or text (for people).")
    var format: SampleFormat = .json

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if every < 1 { throw ValidationError("--every must be at least 1, got \(every)") }
    }

    func run() throws {
        var output = SampleOutput(
            points: sampling.pointsOrCentre, radius: sampling.radius, format: format,
            swatches: isatty(STDOUT_FILENO) != 0)
        var frameIndex = 0
        try input.forEachFrame(input.configuration(), limit: frames, done: "read") { frame, timestamp in
            defer { frameIndex += 1 }
            guard frameIndex % every == 0 else { return }
            try output.print(frame, index: frameIndex, timestamp: timestamp)
        }
    }
}

enum SampleFormat: String, ExpressibleByArgument, CaseIterable {
    case json, csv, text
}

/// Samples frames with one reused sampler and prints the colours in the chosen format.
private struct SampleOutput {
    let points: [SamplePoint]
    let radius: Int
    let format: SampleFormat
    /// Whether text output shows each colour as a swatch (ANSI 24-bit background colour).
    let swatches: Bool
    /// Converts with each frame's colorimetry (the source has applied --matrix and --range).
    private let sampler = ColorSampler()
    private var samples: [ColorSample] = []
    /// The colorimetry named in the last text header: text names it again only when it changes.
    private var shownColorimetry: Colorimetry?

    init(points: [SamplePoint], radius: Int, format: SampleFormat, swatches: Bool) {
        self.points = points
        self.radius = radius
        self.format = format
        self.swatches = swatches
        if format == .csv { Swift.print("frame,timestamp,matrix,range,x,y,r,g,b,hex,hue,saturation,value,lab_l,lab_a,lab_b") }
    }

    /// `timestamp`: seconds, from the driver for a camera, from the frame rate for a file.
    mutating func print(_ frame: borrowing PlanarFrame, index: Int, timestamp: Double) throws {
        let colorimetry = frame.colorimetry
        try sampler.sample(frame, at: points, radius: radius, into: &samples)
        let (matrix, range) = (colorimetry.matrix.rawValue, colorimetry.range.rawValue)
        switch format {
        case .json:
            Swift.print(SampleJSON.object(frame: index, timestamp: timestamp, colorimetry: colorimetry, samples: samples))
        case .csv:
            for sample in samples {
                let (point, color) = (sample.point, sample.color)
                let (hsv, lab) = (color.hsv, color.lab)
                Swift.print([
                    "\(index)", "\(timestamp)", matrix, range, "\(point.x)", "\(point.y)",
                    "\(color.r)", "\(color.g)", "\(color.b)", color.hex,
                    fixed(hsv.hue, 1), fixed(hsv.saturation, 4), fixed(hsv.value, 4),
                    fixed(lab.l, 2), fixed(lab.a, 2), fixed(lab.b, 2),
                ].joined(separator: ","))
            }
        case .text:
            if shownColorimetry != colorimetry {
                Swift.print("\(frame.width)x\(frame.height), \(matrix) \(range) range")
                shownColorimetry = colorimetry
            }
            for sample in samples {
                let (point, color) = (sample.point, sample.color)
                let (hsv, lab) = (color.hsv, color.lab)
                let swatch = swatches ? "\u{1B}[48;2;\(color.r);\(color.g);\(color.b)m    \u{1B}[0m  " : ""
                Swift.print(
                    "frame \(index)  at \(point.x),\(point.y)  \(swatch)\(color.hex)  "
                        + "rgb \(color.r) \(color.g) \(color.b)  "
                        + "hsv \(fixed(hsv.hue, 0))° \(fixed(hsv.saturation * 100, 0))% \(fixed(hsv.value * 100, 0))%  "
                        + "lab \(fixed(lab.l, 1)) \(fixed(lab.a, 1)) \(fixed(lab.b, 1))")
            }
        }
    }
}
