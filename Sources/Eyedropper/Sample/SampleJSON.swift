/// The JSON object for one sampled frame: one line of `eyedropper sample --format json`, and the
/// body of the server's sample endpoint and events, in the documented field order. One
/// interpolated string rather than `JSONText`'s field list: this runs for every frame, and the
/// field list took 2.3-2.8 times as long for a line of 10 points. Its strings (matrix, range,
/// hex) never need escaping.
public enum SampleJSON {
    /// `{"frame":N,"timestamp":T,"matrix":"...","range":"...","samples":[{"x":..,"y":..,"r":..,"g":..,"b":..,"hex":".."}]}`
    public static func object(frame: Int, timestamp: Double, colorimetry: Colorimetry, samples: [ColorSample]) -> String {
        let fields = samples.map { sample in
            let (point, color) = (sample.point, sample.color)
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)"}"#
        }
        return #"{"frame":\#(frame),"timestamp":\#(timestamp),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(fields.joined(separator: ","))]}"#
    }
}
