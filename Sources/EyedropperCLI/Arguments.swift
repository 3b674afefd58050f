import ArgumentParser
import Eyedropper
import EyedropperJPEG

/// `WxH`, both at least 1.
struct FrameSize: ExpressibleByArgument, Hashable {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        try? self.init(parsing: argument)
    }

    /// Parses `WxH`, saying what is wrong when it cannot.
    init(parsing argument: String) throws(ValidationError) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            throw ValidationError("give the width and height in pixels as WxH, both at least 1, e.g. 1280x720")
        }
        self.init(width: width, height: height)
    }

    static func parse(_ argument: String) throws -> FrameSize { try FrameSize(parsing: argument) }

    var defaultValueDescription: String { "\(width)x\(height)" }
}

/// `X,Y` with both in 0...1; anything else (outside, NaN, infinite) is refused, never clamped.
extension SamplePoint: ExpressibleByArgument {
    public init?(argument: String) {
        guard let point = try? Self.parse(argument) else { return nil }
        self = point
    }

    /// Parses `X,Y`, saying what is wrong when it cannot.
    static func parse(_ argument: String) throws -> SamplePoint {
        do {
            return try SamplePoint(parsing: argument)
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// The points to sample and the patch around each: shared by `sample` and `serve`.
struct PointOptions: ParsableArguments {
    @Option(name: .customLong("at"), help: ArgumentHelp(
        "A point to sample, X,Y in 0...1 from the top-left corner (repeatable; default: the centre).",
        valueName: "X,Y"), transform: SamplePoint.parse)
    var points: [SamplePoint] = []

    @Option(help: "Average the (2R+1)x(2R+1) pixels around each point (0: the single pixel).")
    var radius: Int = 0

    func validate() throws {
        guard (0...SamplingError.maximumRadius).contains(radius) else {
            throw ValidationError("--radius: " + SamplingError.radiusOutOfRange(radius).description)
        }
    }

    /// The --at points, or the centre when none is given.
    var pointsOrCentre: [SamplePoint] { points.isEmpty ? [SamplePoint.center] : points }
}

enum MatrixChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, bt601, bt709, bt2020

    var matrix: YCbCrMatrix? { YCbCrMatrix(rawValue: rawValue) }
}

enum RangeChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, full, limited

    var range: ColorRange? { ColorRange(rawValue: rawValue) }
}

extension PixelLayout: ExpressibleByArgument {}
extension RGBLayout: ExpressibleByArgument {}
extension ConversionKernel: ExpressibleByArgument {}
extension ChromaSubsampling: ExpressibleByArgument {}
