/// The JSON object for one sampled frame: one line of `eyedropper sample --format json`, and the
/// body of the server's sample endpoint and events, in the documented field order. One
/// interpolated string rather than `JSONText`'s field list: this runs for every frame, and the
/// field list took 2.3-2.8 times as long for a line of 10 points. Its strings (matrix, range,
/// hex) never need escaping.
public enum SampleJSON {
    /// `{"frame":N,"timestamp":T,"matrix":"...","range":"...","samples":[{"x":..,"y":..,"r":..,"g":..,"b":..,"hex":"..",
    /// "mean":[R,G,B],"sd":[R,G,B],"n":N,"clipped":C}]}`, mean and sd with 2 decimals. `frames`
    /// (a block of `SampleAverage`) adds `"frames":N` after `"frame"`; nil leaves it out.
    public static func object(
        frame: Int, frames: Int? = nil, timestamp: Double, colorimetry: Colorimetry, samples: [ColorSample]
    ) -> String {
        let fields = samples.map { sample in
            let (point, color, statistics) = (sample.point, sample.color, sample.statistics)
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)","#
                + #""mean":\#(triple(statistics.mean)),"sd":\#(triple(statistics.standardDeviation)),"#
                + #""n":\#(statistics.count),"clipped":\#(statistics.clipped)}"#
        }
        let block = frames.map { #","frames":\#($0)"# } ?? ""
        return #"{"frame":\#(frame)\#(block),"timestamp":\#(timestamp),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(fields.joined(separator: ","))]}"#
    }

    /// `[r,g,b]` with 2 decimals each.
    private static func triple(_ values: (r: Double, g: Double, b: Double)) -> String {
        "[\(DecimalText.fixed(values.r, 2)),\(DecimalText.fixed(values.g, 2)),\(DecimalText.fixed(values.b, 2))]"
    }
}
