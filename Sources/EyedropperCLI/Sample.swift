import ArgumentParser
import Eyedropper

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC, converts each to RGB with the matrix and range the source \
            reports (or --matrix / --range) and prints one JSON object per frame with the colour at \
            every --at point. SRC is a capture device (/dev/videoN), a .y4m file (YUV4MPEG2, 8-bit \
            4:2:0) or 'testpattern' (75% colour bars, a grey ramp and a hue sweep). Default: the \
            first capture device, or the test pattern when there is none.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "A point to sample, X,Y in 0...1 from the top-left corner (repeatable; default: the centre).",
        valueName: "X,Y"))
    var points: [SamplePoint] = []

    @Option(help: "Average the (2R+1)x(2R+1) pixels around each point (0: the single pixel).")
    var radius: Int = 0

    @Option(help: "Stop after this many frames (default: all of a file, 1 of the test pattern, a camera until Ctrl-C).")
    var frames: Int?

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        guard (0...SamplingError.maximumRadius).contains(radius) else {
            throw ValidationError(SamplingError.radiusOutOfRange(radius).description)
        }
    }

    func run() throws {
        var output = SampleOutput(points: points.isEmpty ? [SamplePoint.center] : points, radius: radius, input: input)
        try input.forEachFrame(limit: frames, done: "sampled") { frame, timestamp in
            try output.sample(frame, timestamp: timestamp)
        }
    }
}

/// Samples each frame with one reused sampler and prints the colours as a line of JSON.
private struct SampleOutput {
    let points: [SamplePoint]
    let radius: Int
    let input: SourceOptions
    private(set) var frameIndex = 0
    private var sampler: ColorSampler?
    private var samples: [ColorSample] = []

    init(points: [SamplePoint], radius: Int, input: SourceOptions) {
        self.points = points
        self.radius = radius
        self.input = input
    }

    /// `timestamp`: seconds, from the driver for a camera, from the frame rate for a file.
    mutating func sample(_ frame: borrowing PlanarFrame, timestamp: Double) throws {
        let colorimetry = input.colorimetry(of: frame)
        if sampler?.colorimetry != colorimetry { sampler = ColorSampler(colorimetry: colorimetry) }
        try sampler!.sample(frame, at: points, radius: radius, into: &samples)
        print(SampleJSON.object(frame: frameIndex, timestamp: timestamp, colorimetry: colorimetry, samples: samples))
        frameIndex += 1
    }
}
