import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A camera calibrated against a chart: everything `sample --profile` needs to turn a patch's
/// mean camera RGB into device-independent colour, and everything a person needs to judge it
/// (what it was made from, under which colorimetry and camera controls, how well it fits).
///
/// Valid for the camera, its controls and the light it was made under: a profile made with auto
/// exposure or auto white balance on describes only the moment it was made.
public struct CameraProfile: Hashable, Sendable, Codable {
    /// What `format` holds in every profile, so a file that is not one is told apart.
    public static let formatName = "eyedropper-camera-profile"
    /// The version this build writes and reads.
    public static let currentVersion = 1

    public let format: String
    public let version: Int
    /// When it was made, ISO 8601 UTC.
    public let created: String
    public let chart: String
    public let reference: ChartReference
    /// The colorimetry the frames were converted with, and their size.
    public let colorimetry: Colorimetry
    public let width: Int
    public let height: Int
    /// The camera's controls when the chart was read, by name (empty for a file or the test pattern).
    public let controls: [String: Int]
    public let toneCurve: ToneCurve
    public let correction: ColorCorrection
    public let report: CalibrationReport
    /// How the camera saw a reference patch in view (`calibrate --white-reference`); nil when
    /// none was read, and then absent from the file, so older profiles read as before.
    public private(set) var whiteReference: WhiteReferenceRecord?

    public init(
        calibration: Calibration, report: CalibrationReport, colorimetry: Colorimetry, width: Int, height: Int,
        controls: [String: Int], created: String = CameraProfile.now()
    ) {
        format = Self.formatName
        version = Self.currentVersion
        self.created = created
        chart = "ColorChecker Classic 24"
        reference = calibration.reference
        self.colorimetry = colorimetry
        self.width = width
        self.height = height
        self.controls = controls
        toneCurve = calibration.toneCurve
        correction = calibration.correction
        self.report = report
    }

    /// This profile with `statistics`, read at `point` with `radius` over the same frames, as its
    /// white reference.
    public func recordingWhiteReference(at point: SamplePoint, radius: Int, statistics: PatchStatistics) -> CameraProfile {
        var profile = self
        profile.whiteReference = WhiteReferenceRecord(point: point, radius: radius, statistics: statistics, profile: self)
        return profile
    }

    /// The largest |X|, |Y| or |Z| a profile's colours may reach: ten thousand times the perfect
    /// white's Y = 100. A profile whose curves and matrix can go further is damaged (no fit makes
    /// one), and its colours would overflow the outputs' fixed decimals.
    public static let maximumXYZ = 1e6

    /// An upper bound on |X|, |Y| and |Z| over every mean camera RGB: each tone curve rises, so a
    /// channel's linear value is at most its value at 1, and every model's terms (r, g, b, 1,
    /// √(rg), ...) are never negative and grow with the linear values. NaN if the curves are.
    var xyzBound: Double {
        let terms = correction.model.terms(toneCurve.linear(SIMD3(repeating: 1)))
        var bound = 0.0
        for row in correction.matrix {
            var sum = 0.0
            for (index, coefficient) in row.enumerated() { sum += abs(coefficient) * terms[index] }
            if sum.isNaN { return .nan }
            bound = Swift.max(bound, sum)
        }
        return bound
    }

    /// The calibrated colour of a patch whose mean camera RGB (0...255, unrounded) is `mean`.
    @inline(__always)
    public func calibrated(_ mean: (r: Double, g: Double, b: Double)) -> CalibratedColor {
        CalibratedColor(xyz: correction.xyz(toneCurve.linear(SIMD3(mean.r, mean.g, mean.b) / 255)))
    }

    /// What differs between the frames the profile was made from and frames of `colorimetry` and
    /// size: each a sentence for a warning; empty when nothing does.
    public func mismatches(colorimetry: Colorimetry, width: Int, height: Int) -> [String] {
        var found: [String] = []
        if colorimetry != self.colorimetry {
            found.append(
                "the profile was made from \(self.colorimetry) frames, these are \(colorimetry): its colours will be off (use --matrix/--range to match, or calibrate again)"
            )
        }
        if width != self.width || height != self.height {
            found.append(
                "the profile was made at \(self.width)x\(self.height), these frames are \(width)x\(height): a camera's processing can differ by size (calibrate again at this size if colours look off)"
            )
        }
        return found
    }

    /// Checks frames against a profile as they come, saying only when what they are changes.
    public struct FrameCheck: Sendable {
        public let profile: CameraProfile
        private var checked: (colorimetry: Colorimetry, width: Int, height: Int)?

        public init(_ profile: CameraProfile) {
            self.profile = profile
        }

        /// `mismatches` for a frame of `colorimetry` and size when it is the first or differs
        /// from the last one checked (empty when it now matches the profile); nil otherwise.
        public mutating func changed(colorimetry: Colorimetry, width: Int, height: Int) -> [String]? {
            if let checked, checked == (colorimetry, width, height) { return nil }
            checked = (colorimetry, width, height)
            return profile.mismatches(colorimetry: colorimetry, width: width, height: height)
        }
    }

    /// Now, as `2026-11-23T21:05:00Z`.
    public static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
