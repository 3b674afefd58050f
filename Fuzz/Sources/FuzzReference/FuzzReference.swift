import Eyedropper
import FuzzSupport

/// Where the chart is in the frame: the corners `calibrate --corners` gives, in a 640x480 frame.
let geometry = try! ChartGeometry(
    corners: [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)].map { try! SamplePoint(x: $0.0, y: $0.1) },
    width: 640, height: 480)

/// The input as `calibrate --reference FILE`: decoded as the command decodes it, then a chart
/// of exactly those colours, as an sRGB camera would read it, calibrated against it into a
/// profile that is written and read back.
func fuzzReference(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let reference: ChartReference
    do {
        reference = try ChartReference.decode(fuzzInput(data, count), path: "fuzz.json")
    } catch {
        invariant(!error.isMissingFile, "bad data reported as a missing file: \(error)")
        return 0
    }
    invariant(reference.lab.count == ChartReference.patchCount, "\(reference.lab.count) patches")
    for value in reference.lab {
        invariant(value.l.isFinite && value.a.isFinite && value.b.isFinite && (0...100).contains(value.l), "patch \(value)")
    }
    // What --picture draws for each patch, and what an sRGB camera would read there.
    let readings = reference.lab.map { PatchStatistics(CalibratedColor(xyz: CIEXYZ($0)).srgb8) }
    // One model: fitting every model, each again without each patch, takes about a second an
    // input under ASan; the reference enters every model's fit the same way.
    guard let calibration = try? Calibration(readings: readings, reference: reference, model: .linear) else { return 0 }
    for patch in calibration.patches {
        _ = CalibratedColor(xyz: CIEXYZ(patch.corrected)).srgb8
    }
    let report = CalibrationReport(calibration, geometry: geometry, radius: 4, frames: 1, modelAsked: true)
    let profile = CameraProfile(
        calibration: calibration, report: report, colorimetry: Colorimetry(matrix: .bt601, range: .limited),
        width: 640, height: 480, controls: [:])
    do {
        let again = try CameraProfile.decode(profile.json(), path: "profile.json")
        invariant(again == profile, "the profile written reads back changed")
    } catch {
        invariant(false, "the profile calibrate writes does not read back: \(error)")
    }
    return 0
}
