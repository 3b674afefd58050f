import ArgumentParser
import Eyedropper

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC, converts each to RGB with the matrix and range the source \
            reports (or --matrix / --range) and prints one JSON object per frame with the colour at \
            every --at point. SRC is a .y4m file (YUV4MPEG2, 8-bit 4:2:0) or 'testpattern', the \
            built-in 75% colour bars, grey ramp and hue sweep, which is the default until camera \
            capture lands.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Where frames come from: a .y4m file or 'testpattern'.", valueName: "SRC"))
    var source: String?

    @Option(help: ArgumentHelp("Frame size of the test pattern.", valueName: "WxH"))
    var size: FrameSize = FrameSize(width: 1280, height: 720)

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "A point to sample, X,Y in 0...1 from the top-left corner (repeatable; default: the centre).",
        valueName: "X,Y"))
    var points: [SamplePoint] = []

    @Option(help: "Average the (2R+1)x(2R+1) pixels around each point (0: the single pixel).")
    var radius: Int = 0

    @Option(help: "Stop after this many frames (default: all frames of a file, 1 of the test pattern).")
    var frames: Int?

    @Option(help: "YCbCr matrix: auto (what the source reports), bt601, bt709 or bt2020.")
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports), full or limited.")
    var range: RangeChoice = .auto

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        guard (0...SamplingError.maximumRadius).contains(radius) else {
            throw ValidationError(SamplingError.radiusOutOfRange(radius).description)
        }
        if let source, source != "testpattern", !source.hasSuffix(".y4m") {
            throw ValidationError("--source \(source): give a .y4m file or 'testpattern' (cameras are not supported yet)")
        }
    }

    func run() throws {
        let points = points.isEmpty ? [SamplePoint.center] : points
        var output = SampleOutput(points: points, radius: radius, matrix: matrix.matrix, range: range.range)
        guard let source, source != "testpattern" else {
            if self.source == nil { printError("eyedropper: no --source given: sampling the built-in test pattern") }
            let buffer = try TestPattern(width: size.width, height: size.height).makeFrameBuffer()
            for _ in 0..<(frames ?? 1) {
                try buffer.withFrame { try output.sample($0) }
            }
            return
        }
        let reader = try Y4MReader(path: source)
        while output.frameIndex < frames ?? Int.max, try reader.readFrame({ try output.sample($0) }) == .frame {}
    }
}

/// Samples each frame with one reused sampler and prints the colours as a line of JSON.
private struct SampleOutput {
    let points: [SamplePoint]
    let radius: Int
    let matrix: YCbCrMatrix?
    let range: ColorRange?
    private(set) var frameIndex = 0
    private var sampler: ColorSampler?
    private var samples: [ColorSample] = []

    init(points: [SamplePoint], radius: Int, matrix: YCbCrMatrix?, range: ColorRange?) {
        self.points = points
        self.radius = radius
        self.matrix = matrix
        self.range = range
    }

    mutating func sample(_ frame: borrowing PlanarFrame) throws {
        let colorimetry = Colorimetry(
            matrix: matrix ?? frame.colorimetry.matrix, range: range ?? frame.colorimetry.range)
        if sampler?.colorimetry != colorimetry { sampler = ColorSampler(colorimetry: colorimetry) }
        try sampler!.sample(frame, at: points, radius: radius, into: &samples)
        let fields = samples.map { sample in
            let (point, color) = (sample.point, sample.color)
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)"}"#
        }
        print(#"{"frame":\#(frameIndex),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(fields.joined(separator: ","))]}"#)
        frameIndex += 1
    }
}
