import ArgumentParser
import Eyedropper

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC (the built-in test pattern when none is given), converts each to \
            RGB with the matrix and range the source reports (or --matrix / --range) and prints one \
            JSON object per frame with the colour at every --at point.
            """
    )

    @Option(name: .long, help: ArgumentHelp("Where frames come from: 'testpattern'.", valueName: "SRC"))
    var source: String = "testpattern"

    @Option(help: ArgumentHelp("Frame size of the test pattern.", valueName: "WxH"))
    var size: FrameSize = FrameSize(width: 1280, height: 720)

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "A point to sample, X,Y in 0...1 from the top-left corner (repeatable; default: the centre).",
        valueName: "X,Y"))
    var points: [SamplePoint] = []

    @Option(help: "Stop after this many frames.")
    var frames: Int = 1

    @Option(help: "YCbCr matrix: auto (what the source reports), bt601, bt709 or bt2020.")
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports), full or limited.")
    var range: RangeChoice = .auto

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1, got \(frames)") }
        guard source == "testpattern" else {
            throw ValidationError("--source \(source): only 'testpattern' is supported so far")
        }
    }

    func run() throws {
        let pattern = try TestPattern(width: size.width, height: size.height)
        let buffer = try pattern.makeFrameBuffer()
        let points = points.isEmpty ? [SamplePoint(x: 0.5, y: 0.5)] : points
        let colorimetry = Colorimetry(
            matrix: matrix.matrix ?? buffer.colorimetry.matrix, range: range.range ?? buffer.colorimetry.range)
        let converter = YCbCrConverter(colorimetry: colorimetry)
        let rgb = UnsafeMutableRawBufferPointer.allocate(byteCount: size.width * size.height * 3, alignment: 64)
        defer { rgb.deallocate() }
        for frameIndex in 0..<frames {
            try buffer.withFrame { frame in
                try converter.convert(frame, to: .rgb24, into: rgb)
            }
            let samples = points.map { point in
                let x = min(Int(point.x * Double(size.width)), size.width - 1)
                let y = min(Int(point.y * Double(size.height)), size.height - 1)
                let offset = (y * size.width + x) * 3
                let color = RGB8(r: rgb[offset], g: rgb[offset + 1], b: rgb[offset + 2])
                return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)"}"#
            }
            print(#"{"frame":\#(frameIndex),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(samples.joined(separator: ","))]}"#)
        }
    }
}
