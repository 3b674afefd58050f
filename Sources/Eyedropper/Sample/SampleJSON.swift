/// The JSON object for one sampled frame: one line of `eyedropper sample --format json`, and the
/// body of the server's sample endpoint and events, in the documented field order.
public enum SampleJSON {
    /// `{"frame":N,"timestamp":T,"matrix":"...","range":"...","samples":[{"x":..,"y":..,"r":..,"g":..,"b":..,"hex":".."}]}`
    public static func object(frame: Int, timestamp: Double, colorimetry: Colorimetry, samples: [ColorSample]) -> String {
        JSONText.object([
            ("frame", "\(frame)"), ("timestamp", "\(timestamp)"),
            ("matrix", JSONText.string(colorimetry.matrix.rawValue)), ("range", JSONText.string(colorimetry.range.rawValue)),
            ("samples", JSONText.array(samples.map { sample in
                let (point, color) = (sample.point, sample.color)
                return JSONText.object([
                    ("x", "\(point.x)"), ("y", "\(point.y)"), ("r", "\(color.r)"), ("g", "\(color.g)"), ("b", "\(color.b)"),
                    ("hex", JSONText.string(color.hex)),
                ])
            })),
        ])
    }
}
