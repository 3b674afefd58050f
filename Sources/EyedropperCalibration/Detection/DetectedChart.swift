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
    /// Whether each patch (patch 1 first) was read; a hidden one (covered, glaring, beyond the
    /// frame) has its centre and corners from the grid all the same.
    public internal(set) var visible = [Bool](repeating: true, count: 24)
    /// Whether each patch's middle lies beyond the frame's edge (so it is hidden).
    public internal(set) var outside = [Bool](repeating: false, count: 24)
    /// The median CIEDE2000 between the reference's colours and the visible patches' colours
    /// taken to them by the best 3x3 matrix and smooth light: 2.6 to 5.1 for real charts in
    /// twelve photographs from phones and plant-imaging booths, more for a chart whose colours
    /// are not the reference's (a printed copy, a chart on a screen, a faded chart).
    public internal(set) var colorDifference = 0.0
    /// The patch's side over the step, as the squares seen measure it.
    public internal(set) var patchFraction = ChartDetector.patchFraction
    /// The shorter grid step, in pixels.
    public internal(set) var pitch = 0.0
    public internal(set) var width = 0
    public internal(set) var height = 0

    public init() {}

    /// Past this `colorDifference` the chart's colours are not the reference's: `chart` warns,
    /// and `calibrate` will not fit a camera to them without the chart's own (`--reference`).
    public static let looseColors = 10.0

    /// The patch numbers (1...24) read, and those hidden.
    public var visibleNumbers: [Int] { (0..<24).filter { visible[$0] }.map { $0 + 1 } }
    public var hiddenNumbers: [Int] { (0..<24).filter { !visible[$0] }.map { $0 + 1 } }

    /// What a person should know about this chart before trusting it: patches hidden, and
    /// colours that do not fit the reference.
    public var warnings: [String] {
        var lines: [String] = []
        let beyond = (0..<24).filter { outside[$0] }.map { $0 + 1 }
        let covered = (0..<24).filter { !visible[$0] && !outside[$0] }.map { $0 + 1 }
        func list(_ numbers: [Int]) -> String {
            (numbers.count == 1 ? "patch " : "patches ") + numbers.map(String.init).joined(separator: ", ")
        }
        if !covered.isEmpty {
            lines.append(
                "\(list(covered)) hidden (covered, or glaring): not read; their centres are where the grid puts them")
        }
        if !beyond.isEmpty {
            lines.append("\(list(beyond)) beyond the frame's edge: not read; their centres are where the grid puts them")
        }
        if colorDifference > Self.looseColors {
            lines.append(
                "the colours fit the reference loosely (median ΔE00 \(DecimalText.fixed(colorDifference, 1)) after the best 3x3, over \(DecimalText.fixed(Self.looseColors, 0)) for this): a printed copy, a chart on a screen or a faded chart? calibrate needs that chart's own colours (--reference)"
            )
        }
        return lines
    }
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
            "no ColorChecker found (\(candidates) square patches seen, none on a 6 x 4 grid of the chart's colours): have the chart in view (at most \(ChartDetector.maximumHidden) patches covered or beyond the edge), at least 150 pixels wide, in even light, and not glaring"
        case .twoCharts:
            "two ColorCheckers found: have only one in view (or, to calibrate, give its corners with --corner)"
        case .unsure(let confidence):
            "a ColorChecker may be there, but the colours fit it too loosely to be sure (confidence \(DecimalText.fixed(confidence, 2)), \(DecimalText.fixed(ChartDetector.minimumConfidence, 2)) needed): light it evenly, lock exposure and white balance, bring it closer (or, to calibrate, give its corners with --corner)"
        case .outsideFrame:
            "a ColorChecker is there but more than \(ChartDetector.maximumHidden) of its patches are beyond the frame's edge: bring the chart into view"
        }
    }
}

extension ChartDetectionFailure: ExitStatusError {
    public var exitStatus: Int32 { 65 }
}
