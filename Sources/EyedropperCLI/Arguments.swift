import ArgumentParser
import Eyedropper
import EyedropperCalibration
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
    @Option(
        name: .customLong("at"),
        help: ArgumentHelp(
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

/// A camera profile and a target colour: shared by `sample` and `serve`.
struct CalibrationOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A camera profile from eyedropper calibrate: each sample gains its calibrated colour (XYZ and L*a*b* D50, sRGB).",
            valueName: "PROFILE.json"))
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "A colour to compare with: L,a,b (D50) or '#rrggbb' (sRGB); each sample gains its CIEDE2000 to it and pass (needs --profile).",
            valueName: "L,a,b|#rrggbb"))
    var target: String?

    @Option(help: ArgumentHelp("The largest CIEDE2000 from --target that passes.", valueName: "DE"))
    var tolerance: Double = 2.0

    func validate() throws {
        guard tolerance.isFinite, tolerance >= 0 else {
            throw ValidationError("--tolerance must be a CIEDE2000 of 0 or more, got \(tolerance)")
        }
        if let target {
            guard profile != nil else {
                throw ValidationError(
                    "--target needs --profile: what is compared with the target is the calibrated colour (make a profile with eyedropper calibrate)"
                )
            }
            do {
                _ = try ColorTarget(parsing: target)
            } catch {
                throw ValidationError("--target: \(error.description)")
            }
        }
    }

    /// The profile, read and checked, and the target; nil without --profile.
    func load() throws -> (profile: CameraProfile, target: ColorTarget?)? {
        guard let profile else { return nil }
        return (try CameraProfile.load(path: profile), try target.map { try ColorTarget(parsing: $0, tolerance: tolerance) })
    }
}
