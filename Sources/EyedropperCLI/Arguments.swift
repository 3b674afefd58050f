import ArgumentParser
import Eyedropper
import EyedropperCalibration
import EyedropperJPEG
import EyedropperPipeline

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

/// A camera profile and a target colour: shared by `sample` and `serve`. Each value is parsed once,
/// into its type, as the command line is read.
struct CalibrationOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A camera profile from eyedropper calibrate: each sample gains its calibrated colour (XYZ and L*a*b* D50, sRGB).",
            valueName: "PROFILE.json"))
    var profile: String?

    @Option(
        help: ArgumentHelp(
            "A colour to compare with: L,a,b (D50) or '#rrggbb' (sRGB); each sample gains its CIEDE2000 to it and pass (needs --profile).",
            valueName: "L,a,b|#rrggbb"),
        transform: CIELab.parse)
    var target: CIELab?

    @Option(help: ArgumentHelp("The largest CIEDE2000 from --target that passes.", valueName: "DE"))
    var tolerance: Double = 2.0

    @Option(
        help: ArgumentHelp(
            "A white or grey patch that stays in view (a tile, a card), read over (2R+1)x(2R+1) pixels (R: the window the profile recorded it over, whatever --radius the points use): each frame, the calibrated colours are corrected so it reads as when the profile was made (calibrate --white-reference), and each line gains \"reference\" (needs --profile).",
            valueName: "X,Y[,R]"),
        transform: ReferencePatch.parse)
    var whiteReference: ReferencePatch?

    @Option(
        help: ArgumentHelp(
            "The white reference's own L*a*b* (D50), for a profile that recorded none (its window: R of --white-reference, else \(WhiteReference.defaultRadius)).",
            valueName: "L,a,b"),
        transform: CIELab.parse)
    var whiteReferenceLab: CIELab?

    @Option(
        help: ArgumentHelp(
            "How the white reference corrects: bradford (a 3x3 in Bradford's cone space on the calibrated XYZ) or diagonal (each camera channel scaled before the profile's matrix)."
        ))
    var referenceModel: ReferenceModel = .bradford

    @Option(
        help: ArgumentHelp(
            "A frame whose reference moved more than this CIEDE2000 since calibration says \"state\":\"drift\" (and, with --target, sample exits 1).",
            valueName: "DE"))
    var maxDrift: Double?

    func validate() throws {
        guard tolerance.isFinite, tolerance >= 0 else {
            throw ValidationError("--tolerance must be a CIEDE2000 of 0 or more, got \(tolerance)")
        }
        if target != nil, profile == nil {
            throw ValidationError(
                "--target needs --profile: what is compared with the target is the calibrated colour (make a profile with eyedropper calibrate)"
            )
        }
        if whiteReference != nil, profile == nil {
            throw ValidationError(
                "--white-reference needs --profile: the reference corrects the calibrated colours for the light's change since the profile was made (make one with eyedropper calibrate --white-reference X,Y)"
            )
        }
        for (given, name) in [(whiteReferenceLab != nil, "--white-reference-lab"), (maxDrift != nil, "--max-drift")] where given {
            guard whiteReference != nil else { throw ValidationError("\(name) needs --white-reference X,Y: where the reference patch is") }
        }
        if let maxDrift, !(maxDrift.isFinite && maxDrift >= 0) {
            throw ValidationError("--max-drift must be a CIEDE2000 of 0 or more, got \(maxDrift)")
        }
    }

    /// `--target` with `--tolerance`; nil without it.
    var colorTarget: ColorTarget? { target.map { ColorTarget(lab: $0, tolerance: tolerance) } }

    /// What --white-reference and its options ask for; nil without it.
    var referenceSettings: WhiteReferenceSettings? {
        whiteReference.map { patch in
            WhiteReferenceSettings(
                point: patch.point, radius: patch.radius, lab: whiteReferenceLab, model: referenceModel, maxDrift: maxDrift)
        }
    }

    /// The profile, read and checked, the target and the white reference; nil without --profile.
    func load() throws -> (profile: CameraProfile, target: ColorTarget?, reference: WhiteReference?)? {
        guard let profile else { return nil }
        let loaded = try CameraProfile.load(path: profile)
        var reference: WhiteReference?
        do throws(WhiteReferenceError) {
            if let settings = referenceSettings { reference = try WhiteReference(profile: loaded, settings: settings) }
        } catch {
            throw CommandFailure("--white-reference with \(profile): \(error.description)", status: error.exitStatus)
        }
        if let moved = reference?.moved { StandardError.writeLine("eyedropper: warning: \(moved)") }
        return (loaded, colorTarget, reference)
    }
}

/// `--white-reference X,Y[,R]`: where the patch is and, if given, the radius of its window.
struct ReferencePatch: Hashable {
    var point: SamplePoint
    var radius: Int?

    /// Parses `X,Y` or `X,Y,R`, saying what is wrong when it cannot.
    static func parse(_ argument: String) throws -> ReferencePatch {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return ReferencePatch(point: try SamplePoint.parse(argument), radius: nil) }
        let point = try SamplePoint.parse(parts[0...1].joined(separator: ","))
        guard let radius = Int(parts[2].filter { $0 != " " }), (0...SamplingError.maximumRadius).contains(radius) else {
            throw ValidationError(
                "the radius R of X,Y,R must be a whole number of pixels from 0 to \(SamplingError.maximumRadius), got \(parts[2])")
        }
        return ReferencePatch(point: point, radius: radius)
    }
}

extension CIELab {
    /// `L,a,b` (D50) or `#rrggbb` (sRGB), saying what is wrong when it cannot.
    static func parse(_ argument: String) throws -> CIELab {
        do {
            return try ColorTarget(parsing: argument).lab
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// Named colours: shared by `sample` and `serve`.
struct PaletteOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Name each sample by its nearest colour (CIEDE2000) in FILE: JSON [{\"name\":\"red\",\"lab\":[L,a,b]}, ...] (L*a*b* D50, or \"srgb\":[r,g,b] or \"hex\":\"#rrggbb\" instead of \"lab\"), or CSV with a header name,lab_l,lab_a,lab_b (or name,srgb_r,srgb_g,srgb_b or name,hex). Each sample gains \"nearest\".",
            valueName: "FILE"))
    var palette: String?

    @Option(
        help: ArgumentHelp("Past this CIEDE2000 from the nearest colour, a sample is named unknown (needs --palette).", valueName: "DE"))
    var maxDeltaE: Double?

    func validate() throws {
        if let maxDeltaE {
            guard palette != nil else { throw ValidationError("--max-delta-e needs --palette FILE: the colours to name samples by") }
            guard maxDeltaE.isFinite, maxDeltaE >= 0 else {
                throw ValidationError("--max-delta-e must be a CIEDE2000 of 0 or more, got \(maxDeltaE)")
            }
        }
    }

    /// The palette, read and checked; nil without --palette.
    func load() throws -> PaletteSettings? {
        guard let palette else { return nil }
        return PaletteSettings(palette: try Palette.load(path: palette), maxDeltaE: maxDeltaE)
    }
}

extension ReferenceModel: ExpressibleByArgument {}
