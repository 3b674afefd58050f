import Eyedropper
import EyedropperCalibration
import Foundation

/// A camera profile fitted in process to `SimulatedCamera`'s readings of the ColorChecker, said to
/// be made from frames of `colorimetry` and size: for tests that need a real profile without
/// running `calibrate` on a chart file. `model` fixed: fitting one model is a third of the work.
public func simulatedProfile(
    colorimetry: Colorimetry, width: Int, height: Int, model: CorrectionModel = .linear, created: String = "2026-11-23T21:05:00Z"
) throws -> CameraProfile {
    let calibration = try Calibration(readings: SimulatedCamera().readings(ChartReference.colorChecker2014.lab), model: model)
    let corners = try [(0.2, 0.3), (0.8, 0.3), (0.8, 0.7), (0.2, 0.7)].map { try SamplePoint(x: $0.0, y: $0.1) }
    let geometry = try ChartGeometry(corners: corners, width: width, height: height)
    let report = CalibrationReport(calibration, geometry: geometry, radius: 4, frames: 1, modelAsked: true)
    return CameraProfile(
        calibration: calibration, report: report, colorimetry: colorimetry, width: width, height: height, controls: [:],
        created: created)
}

/// Writes a copy of the profile at `path` to `damaged` with one row of its correction matrix cut
/// short: a profile whose error must name the field `correction.matrix`.
public func writeDamagedProfile(from path: String, to damaged: String) throws {
    guard var object = try JSONSerialization.jsonObject(with: Data(try ScratchDirectory.read(path))) as? [String: Any],
        var correction = object["correction"] as? [String: Any], var matrix = correction["matrix"] as? [[Double]]
    else { throw CocoaError(.fileReadCorruptFile) }
    matrix[1].removeLast()
    correction["matrix"] = matrix
    object["correction"] = correction
    try ScratchDirectory.write(Array(try JSONSerialization.data(withJSONObject: object)), to: damaged)
}
