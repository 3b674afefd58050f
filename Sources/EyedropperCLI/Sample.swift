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

    @Option(help: "Stop after this many frames (default: all frames of a file, 1 of the test pattern).")
    var frames: Int?

    @Option(help: "YCbCr matrix: auto (what the source reports), bt601, bt709 or bt2020.")
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports), full or limited.")
    var range: RangeChoice = .auto

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let source, source != "testpattern", !source.hasSuffix(".y4m") {
            throw ValidationError("--source \(source): give a .y4m file or 'testpattern' (cameras are not supported yet)")
        }
    }

    func run() throws {
        let points = points.isEmpty ? [SamplePoint(x: 0.5, y: 0.5)] : points
        var output = SampleOutput(points: points, matrix: matrix.matrix, range: range.range)
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

/// Converts each frame into one reused RGB buffer and prints the colours at the points as a line
/// of JSON.
private struct SampleOutput {
    let points: [SamplePoint]
    let matrix: YCbCrMatrix?
    let range: ColorRange?
    private(set) var frameIndex = 0
    private var rgb: [UInt8] = []
    private var converter: YCbCrConverter?

    init(points: [SamplePoint], matrix: YCbCrMatrix?, range: ColorRange?) {
        self.points = points
        self.matrix = matrix
        self.range = range
    }

    mutating func sample(_ frame: borrowing PlanarFrame) throws {
        let colorimetry = Colorimetry(
            matrix: matrix ?? frame.colorimetry.matrix, range: range ?? frame.colorimetry.range)
        if converter?.colorimetry != colorimetry { converter = YCbCrConverter(colorimetry: colorimetry) }
        let (width, height) = (frame.width, frame.height)
        if rgb.count != width * height * 3 { rgb = [UInt8](repeating: 0, count: width * height * 3) }
        let converter = converter!
        try rgb.withUnsafeMutableBytes { try converter.convert(frame, to: .rgb24, into: $0) }
        let samples = points.map { point in
            let x = min(Int(point.x * Double(width)), width - 1)
            let y = min(Int(point.y * Double(height)), height - 1)
            let offset = (y * width + x) * 3
            let color = RGB8(r: rgb[offset], g: rgb[offset + 1], b: rgb[offset + 2])
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)"}"#
        }
        print(#"{"frame":\#(frameIndex),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(samples.joined(separator: ","))]}"#)
        frameIndex += 1
    }
}
