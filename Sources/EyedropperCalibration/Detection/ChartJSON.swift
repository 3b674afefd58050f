import Eyedropper

/// One frame's chart as JSON: a line of `eyedropper chart`, and the body of serve's
/// `GET /api/v1/chart`. Coordinates with 5 decimals (a tenth of a pixel up to 10,000 pixels),
/// levels with 2.
public enum ChartJSON {
    /// `{"frame":N,"found":true,"confidence":C,"mirrored":B,"visible":[1,...],"colorDeltaE":D,
    /// "warnings":[...],"patches":[{"number":1,"center":[x,y],"corners":[[x,y],...],"mean":[r,g,b],
    /// "sd":[r,g,b]},...]}`, in the `--at` system. A patch beyond the frame has its centre and
    /// corners beyond 0...1, where the grid puts them.
    public static func found(frame: Int, _ chart: DetectedChart) -> String {
        let width = Double(chart.width), height = Double(chart.height)
        func point(_ p: SIMD2<Double>) -> String {
            "[\(DecimalText.fixed(p.x / width, 5)),\(DecimalText.fixed(p.y / height, 5))]"
        }
        func triple(_ v: SIMD3<Double>) -> String {
            "[\(DecimalText.fixed(v.x, 2)),\(DecimalText.fixed(v.y, 2)),\(DecimalText.fixed(v.z, 2))]"
        }
        let patches = (0..<24).map { patch in
            let corners = (0..<4).map { point(chart.corners[4 * patch + $0]) }.joined(separator: ",")
            return #"{"number":\#(patch + 1),"center":\#(point(chart.centers[patch])),"corners":[\#(corners)],"#
                + #""mean":\#(triple(chart.means[patch])),"sd":\#(triple(chart.deviations[patch]))}"#
        }
        let visible = chart.visibleNumbers.map(String.init).joined(separator: ",")
        let warnings = chart.warnings.map(JSONText.string).joined(separator: ",")
        return #"{"frame":\#(frame),"found":true,"confidence":\#(DecimalText.fixed(chart.confidence, 2)),"#
            + #""mirrored":\#(chart.mirrored),"visible":[\#(visible)],"colorDeltaE":\#(DecimalText.fixed(chart.colorDifference, 2)),"#
            + #""warnings":[\#(warnings)],"patches":[\#(patches.joined(separator: ","))]}"#
    }

    /// `{"frame":N,"found":false,"reason":"...","detail":"..."}`.
    public static func notFound(frame: Int, _ failure: ChartDetectionFailure) -> String {
        #"{"frame":\#(frame),"found":false,"reason":"\#(failure.reason)","detail":\#(JSONText.string(failure.description))}"#
    }
}
