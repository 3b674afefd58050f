import Eyedropper
import FoundationEssentials

/// What a calibration measured and how well it fits, as `calibrate --format json` prints it and a
/// profile keeps it: per patch the camera's reading, the reference and the corrected colour with
/// their CIEDE2000, and the summaries of every model tried.
public struct CalibrationReport: Hashable, Sendable, Codable {
    public struct Patch: Hashable, Sendable, Codable {
        /// 1...24.
        public let number: Int
        public let name: String
        /// The patch centre in the frame, 0...1 from the top-left corner.
        public let x: Double
        public let y: Double
        /// The same centre as [x, y], and the patch's four corners (top left, top right, bottom
        /// right, bottom left as the chart is upright), as `eyedropper chart` gives them. nil in
        /// a profile written before they were reported.
        public let center: [Double]?
        public let corners: [[Double]]?
        /// The camera's RGB, mean and standard deviation per channel over the window and frames.
        public let mean: [Double]
        public let sd: [Double]
        public let n: Int
        public let clipped: Int
        /// Whether the patch was fitted; when not, `excluded` says why.
        public let used: Bool
        public let excluded: String?
        /// L*a*b* (D50).
        public let reference: [Double]
        public let corrected: [Double]
        public let deltaE: Double
        /// nil for a patch not used.
        public let deltaELeaveOneOut: Double?
    }

    /// How the tone curve was measured from several exposures (`calibrate --bracket`).
    public struct Bracket: Hashable, Sendable, Codable {
        /// Each exposure relative to the profile's, in the order read.
        public let exposures: [Double]
        /// The levels (patch channels) the curve was measured from.
        public let levels: Int
        /// The camera values (0...255) they covered: the curve is measured there, extrapolated beyond.
        public let range: [Double]
        /// The rms distance of the levels from the curve, in ln linear value (0.01 is 1%).
        public let residual: Double
        /// Whether one curve was measured for the three channels, rather than one each (nil in a
        /// profile written before it was chosen).
        public let sharedByChannels: Bool?

        public init(_ recovery: ResponseRecovery) {
            exposures = recovery.exposures.map(CalibrationReport.micro)
            levels = recovery.samples
            range = [recovery.range.lowerBound, recovery.range.upperBound].map { (255e3 * $0).rounded() / 1e3 }
            residual = CalibrationReport.micro(recovery.residual)
            sharedByChannels = recovery.sharedByChannels
        }
    }

    public let model: CorrectionModel
    /// How the tone curve was found (nil in a profile written before it was chosen: through the
    /// neutrals, or measured when `bracket` is there).
    public let curve: CurveSource?
    /// "leave-one-out" when the model was chosen by its error on patches left out, "asked" when given.
    public let chosenBy: String
    public let fitted: Calibration.Summary
    public let leaveOneOut: Calibration.Summary
    public let candidates: [Calibration.Candidate]
    /// How the light fell across the chart, as the fit estimated it (nil in a profile written
    /// before it was estimated).
    public let light: ChartLight?
    public let patches: [Patch]
    /// How the chart was read: the corners given, the window radius and the frames averaged.
    public let corners: [[Double]]
    public let radius: Int
    public let frames: Int
    /// With `calibrate --bracket`, how the tone curve was measured; nil (and absent) otherwise.
    public let bracket: Bracket?

    public init(
        _ calibration: Calibration, geometry: ChartGeometry, radius: Int, frames: Int, modelAsked: Bool, bracket: Bracket? = nil
    ) {
        model = calibration.model
        curve = calibration.curveSource
        chosenBy = modelAsked ? "asked" : "leave-one-out"
        fitted = calibration.fitted
        leaveOneOut = calibration.leaveOneOut
        candidates = calibration.candidates
        light = ChartLight(perColumn: Self.micro(calibration.light.perColumn), perRow: Self.micro(calibration.light.perRow))
        patches = calibration.patches.map { patch in
            let index = patch.number - 1
            let (mean, sd) = (patch.reading.mean, patch.reading.standardDeviation)
            func triple(_ lab: CIELab) -> [Double] { [lab.l, lab.a, lab.b] }
            return Patch(
                number: patch.number, name: ChartReference.patchNames[index],
                x: Self.micro(geometry.centers[index].x), y: Self.micro(geometry.centers[index].y),
                center: [Self.micro(geometry.centers[index].x), Self.micro(geometry.centers[index].y)],
                corners: geometry.patchCorners[(4 * index)..<(4 * index + 4)].map { [Self.micro($0.x), Self.micro($0.y)] },
                mean: [mean.r, mean.g, mean.b], sd: [sd.r, sd.g, sd.b], n: patch.reading.count, clipped: patch.reading.clipped,
                used: patch.excluded == nil, excluded: patch.excluded,
                reference: triple(patch.reference), corrected: triple(patch.corrected),
                deltaE: patch.deltaE, deltaELeaveOneOut: patch.deltaELeaveOneOut)
        }
        corners = geometry.corners.map { [$0.x, $0.y] }
        self.radius = radius
        self.frames = frames
        self.bracket = bracket
    }

    /// The report as one line of JSON, keys sorted: what `calibrate --format json` prints.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// To 6 decimals (a millionth of the frame), so a corner given as 0.725011 is not reported
    /// as the 0.7250110000000001 the perspective map's arithmetic gives back.
    private static func micro(_ value: Double) -> Double { (value * 1e6).rounded() / 1e6 }
}
