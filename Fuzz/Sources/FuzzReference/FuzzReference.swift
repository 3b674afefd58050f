import Eyedropper
import EyedropperCalibration
import FuzzSupport

/// The input as `calibrate --reference FILE`: decoded as the command decodes it, then what the
/// command computes from each patch before and after the fit: its sRGB swatch (`--picture`) and
/// its colour difference from another patch (the report's ΔE), both of which must be numbers.
///
/// The fit itself is not run: one calibration takes about 230 ms under ASan, and a corpus of
/// valid references then took 35 s to replay instead of its 12 s share. What it first found
/// (a finite b* of -2e88 giving NaN ΔE, `CalibrationTests`) shows here as a ΔE that is not
/// finite.
func fuzzReference(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let reference: ChartReference
    do {
        reference = try ChartReference.decode(fuzzInput(data, count), path: "fuzz.json")
    } catch {
        invariant(!error.isMissingFile, "bad data reported as a missing file: \(error)")
        return 0
    }
    invariant(reference.lab.count == ChartReference.patchCount, "\(reference.lab.count) patches")
    let published = ChartReference.colorChecker2014.lab
    for (index, value) in reference.lab.enumerated() {
        let ab = -ChartReference.maximumAB...ChartReference.maximumAB
        invariant((0...100).contains(value.l) && ab.contains(value.a) && ab.contains(value.b), "patch \(value)")
        _ = CalibratedColor(xyz: CIEXYZ(value)).srgb8
        for other in [published[index], reference.lab[(index + 1) % reference.lab.count]] {
            let deltaE = value.deltaE2000(other)
            invariant(deltaE.isFinite && deltaE >= 0, "ΔE \(deltaE) between \(value) and \(other)")
        }
    }
    return 0
}
