import Eyedropper
import EyedropperCalibration

/// The JSON object for one sampled frame: one line of `eyedropper sample --format json`, and the
/// body of the server's sample endpoint and events, in the documented field order. One
/// interpolated string rather than `JSONText`'s field list: this runs for every frame, and the
/// field list took 2.3-2.8 times as long for a line of 10 points. Its strings (matrix, range,
/// hex) never need escaping.
public enum SampleJSON {
    /// `{"frame":N,"timestamp":T,"matrix":"...","range":"...","samples":[{"x":..,"y":..,"r":..,"g":..,"b":..,"hex":"..",
    /// "mean":[R,G,B],"sd":[R,G,B],"n":N,"clipped":C}]}`, mean and sd with 2 decimals. `frames`
    /// (a block of `SampleAverage`) adds `"frames":N` after `"frame"`; nil leaves it out.
    /// `calibrated` (with a profile: one per sample, in order) adds to each sample
    /// `"calibrated":{"xyz":[X,Y,Z],"lab":[L,a,b],"srgb":[r,g,b],"hex":"#rrggbb","inGamut":B}` (XYZ 3
    /// decimals, the others 2) and, with a target, `"deltaE":D,"pass":B`. `reference` (a white
    /// reference's reading) adds after the samples `"reference":{"x":..,"y":..,"mean":[R,G,B],"sd":[R,G,B],
    /// "n":N,"clipped":C,"gains":[r,g,b],"deltaE":D,"applied":B,"state":"..","model":".."}`, gains with 4
    /// decimals. `names` (from `palette`, one per sample) adds to each sample, last,
    /// `"nearest":{"name":"..","deltaE":D,"next":".."|null,"margin":M|null,"of":"calibrated"|"camera"}`.
    /// `profile` (the profile that calibrated them) adds last `"profile":{"file":"..","generation":N}`.
    public static func object(
        frame: Int, frames: Int? = nil, timestamp: Double, colorimetry: Colorimetry, samples: [ColorSample],
        calibrated: [CalibratedSample] = [], reference: ReferenceReading? = nil, names: [NamedColor] = [],
        palette: Palette? = nil, profile: ProfileStamp? = nil
    ) -> String {
        let fields = samples.indices.map { index in
            let sample = samples[index]
            let (point, color, statistics) = (sample.point, sample.color, sample.statistics)
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)","#
                + #""mean":\#(triple(statistics.mean)),"sd":\#(triple(statistics.standardDeviation)),"#
                + #""n":\#(statistics.count),"clipped":\#(statistics.clipped)"#
                + (index < calibrated.count ? Self.calibrated(calibrated[index]) : "")
                + (index < names.count ? palette.map { Self.nearest(names[index], $0) } ?? "" : "") + "}"
        }
        let block = frames.map { #","frames":\#($0)"# } ?? ""
        return
            #"{"frame":\#(frame)\#(block),"timestamp":\#(timestamp),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(fields.joined(separator: ","))]\#(reference.map(Self.reference) ?? "")\#(profile?.json ?? "")}"#
    }

    /// `reading`'s line.
    public static func object(_ reading: Reading) -> String {
        object(
            frame: reading.frame, frames: reading.frames, timestamp: reading.timestamp, colorimetry: reading.colorimetry,
            samples: reading.samples, calibrated: reading.calibrated, reference: reading.reference, names: reading.names,
            palette: reading.palette?.palette, profile: reading.profile)
    }

    /// `,"nearest":{...}`: names made JSON once, when the palette was read.
    private static func nearest(_ name: NamedColor, _ palette: Palette) -> String {
        let next = name.next.map { palette.jsonName($0) } ?? "null"
        let margin = name.margin.map { DecimalText.fixed($0, 2) } ?? "null"
        let deltaE = name.match.deltaE.isFinite ? DecimalText.fixed(name.match.deltaE, 2) : "null"
        return
            #","nearest":{"name":\#(name.entry.map { palette.jsonName($0) } ?? #""unknown""#),"deltaE":\#(deltaE),"#
            + #""next":\#(next),"margin":\#(margin),"of":"\#(name.calibrated ? "calibrated" : "camera")"}"#
    }

    /// `,"reference":{...}`.
    private static func reference(_ reading: ReferenceReading) -> String {
        let statistics = reading.statistics, gains = reading.gains
        return
            #","reference":{"x":\#(reading.point.x),"y":\#(reading.point.y),"mean":\#(triple(statistics.mean)),"#
            + #""sd":\#(triple(statistics.standardDeviation)),"n":\#(statistics.count),"clipped":\#(statistics.clipped),"#
            + #""gains":[\#(DecimalText.fixed(gains.x, 4)),\#(DecimalText.fixed(gains.y, 4)),\#(DecimalText.fixed(gains.z, 4))],"#
            + #""deltaE":\#(reading.deltaE.isFinite ? DecimalText.fixed(reading.deltaE, 2) : "null"),"applied":\#(reading.applied),"#
            + #""state":"\#(reading.state.rawValue)","model":"\#(reading.model.rawValue)"}"#
    }

    /// `,"calibrated":{...}` and, with a target, `,"deltaE":D,"pass":B`.
    private static func calibrated(_ sample: CalibratedSample) -> String {
        let color = sample.color
        let (xyz, lab, srgb) = (color.xyz, color.lab, color.srgb)
        var text =
            #","calibrated":{"xyz":[\#(DecimalText.fixed(xyz.x, 3)),\#(DecimalText.fixed(xyz.y, 3)),\#(DecimalText.fixed(xyz.z, 3))],"#
            + #""lab":[\#(DecimalText.fixed(lab.l, 2)),\#(DecimalText.fixed(lab.a, 2)),\#(DecimalText.fixed(lab.b, 2))],"#
            + #""srgb":[\#(DecimalText.fixed(srgb.x, 2)),\#(DecimalText.fixed(srgb.y, 2)),\#(DecimalText.fixed(srgb.z, 2))],"#
            + #""hex":"\#(color.srgb8.hex)","inGamut":\#(color.inGamut)}"#
        if let deltaE = sample.deltaE, let pass = sample.pass {
            text += #","deltaE":\#(DecimalText.fixed(deltaE, 2)),"pass":\#(pass)"#
        }
        return text
    }

    /// `[r,g,b]` with 2 decimals each.
    private static func triple(_ values: (r: Double, g: Double, b: Double)) -> String {
        "[\(DecimalText.fixed(values.r, 2)),\(DecimalText.fixed(values.g, 2)),\(DecimalText.fixed(values.b, 2))]"
    }
}
