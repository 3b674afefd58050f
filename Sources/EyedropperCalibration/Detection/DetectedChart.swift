import Eyedropper

/// Where the chart is in one frame, in pixels (pixel (i, j) covers [i, i + 1) x [j, j + 1)).
public struct DetectedChart: Sendable {
    /// The 24 patch centres, patch 1 (dark skin) first.
    public internal(set) var centers = [SIMD2<Double>](repeating: .zero, count: 24)
    /// Four corners a patch, 96 in all: the patch's top left, top right, bottom right and
    /// bottom left as the chart is upright (dark skin at the top left).
    public internal(set) var corners = [SIMD2<Double>](repeating: .zero, count: 96)
    /// Each patch's mean and standard deviation over its middle, in levels (0...255).
    public internal(set) var means = [SIMD3<Double>](repeating: .zero, count: 24)
    public internal(set) var deviations = [SIMD3<Double>](repeating: .zero, count: 24)
    /// 0...1: how closely the colours fit the chart's the way it was read, by how much that
    /// way beats every other, how many patches were seen as patches, and how well they lie
    /// on one grid.
    public internal(set) var confidence = 0.0
    /// Seen in a mirror (or printed mirrored): going from patch 1 to 6 and then to 19 turns the
    /// other way than on the card. The patches are still numbered as on the card.
    public internal(set) var mirrored = false
    /// The root-mean-square distance of the regions found from their grid points, in steps.
    public internal(set) var residual = 0.0
    /// The shorter grid step, in pixels.
    public internal(set) var pitch = 0.0
    public internal(set) var width = 0
    public internal(set) var height = 0

    public init() {}
}

/// Why `ChartDetector` found no chart it can give.
public enum ChartDetectionFailure: Error, Hashable, Sendable, CustomStringConvertible {
    case noChart(candidates: Int)
    case twoCharts
    case unsure(confidence: Double)
    case outsideFrame

    /// A short reason, for a JSON line.
    public var reason: String {
        switch self {
        case .noChart: "no chart"
        case .twoCharts: "two charts"
        case .unsure: "unsure"
        case .outsideFrame: "outside the frame"
        }
    }

    public var description: String {
        switch self {
        case .noChart(let candidates):
            "no ColorChecker found (\(candidates) square patches seen, none on a 6 x 4 grid of the chart's colours): have the whole chart in view, at least 150 pixels wide, in even light, and not glaring"
        case .twoCharts:
            "two ColorCheckers found: have only one in view (or, to calibrate, give its corners with --corner)"
        case .unsure(let confidence):
            "a ColorChecker may be there, but the colours fit it too loosely to be sure (confidence \(DecimalText.fixed(confidence, 2)), \(DecimalText.fixed(ChartDetector.minimumConfidence, 2)) needed): light it evenly, lock exposure and white balance, bring it closer (or, to calibrate, give its corners with --corner)"
        case .outsideFrame:
            "a ColorChecker is there but part of it is outside the frame: have the whole chart in view"
        }
    }
}

extension ChartDetectionFailure: ExitStatusError {
    public var exitStatus: Int32 { 65 }
}
