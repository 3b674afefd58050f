import Eyedropper

/// How the light falls across a chart, as a plane over its columns and rows: the light on each
/// patch as a fraction of the light at the chart's centre. A lamp to one side lights the near
/// patches more than the far ones; read as they are, the far patches look darker than they are,
/// and the fit would learn that as the camera's colour. The calibration estimates the plane from
/// the patches themselves and fits the camera to what each patch would read under the centre's
/// light, so the profile is for the light where the chart's centre was.
public struct ChartLight: Hashable, Sendable, Codable {
    /// How much the light changes from one column to the next (left to right as the chart is
    /// upright) and from one row to the next (top to bottom), as a fraction of the centre's.
    public let perColumn: Double
    public let perRow: Double

    public init(perColumn: Double, perRow: Double) {
        self.perColumn = perColumn
        self.perRow = perRow
    }

    /// The same light on every patch.
    public static let even = ChartLight(perColumn: 0, perRow: 0)

    /// The patch's column and row (patch 1, at index 0, in the top-left corner) from the
    /// chart's centre.
    static func column(_ index: Int) -> Double { Double(index % ChartReference.columns) - Double(ChartReference.columns - 1) / 2 }
    static func row(_ index: Int) -> Double { Double(index / ChartReference.columns) - Double(ChartReference.rows - 1) / 2 }

    /// The light on the patch at `index` (0...23), relative to the centre's.
    public func gain(patch index: Int) -> Double {
        max(1 + perColumn * Self.column(index) + perRow * Self.row(index), 0.05)
    }

    /// The brightest patch's light over the darkest's, less 1: 0.2 when the light on one patch is
    /// 20% more than on another.
    public var spread: Double {
        let gains = (0..<ChartReference.patchCount).map { gain(patch: $0) }
        return gains.max()! / gains.min()! - 1
    }
}
