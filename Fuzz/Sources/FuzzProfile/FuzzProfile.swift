import Eyedropper
import EyedropperCalibration
import EyedropperPipeline
import FuzzSupport

/// Patch means a camera gives: black, white, grey, each primary and a skin tone.
let means: [RGB8] = [
    RGB8(r: 0, g: 0, b: 0), RGB8(r: 255, g: 255, b: 255), RGB8(r: 128, g: 128, b: 128),
    RGB8(r: 255, g: 0, b: 0), RGB8(r: 0, g: 255, b: 0), RGB8(r: 0, g: 0, b: 255), RGB8(r: 194, g: 150, b: 130),
]
let samples = means.map { ColorSample(point: .center, color: $0) }
let target = ColorTarget(lab: CIELab(l: 50, a: 10, b: -10))

/// The input as a `--profile` file: decoded as `eyedropper sample --profile` and `serve --profile`
/// load it, then used as they use it, on every line they print.
func fuzzProfile(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let profile: CameraProfile
    do {
        profile = try CameraProfile.decode(fuzzInput(data, count), path: "fuzz.json")
    } catch {
        invariant(!error.isMissingFile, "bad data reported as a missing file: \(error)")
        return 0
    }
    // The file calibrate writes is the profile: written again and read back, nothing changes.
    let written = profile.json()
    do {
        let again = try CameraProfile.decode(written, path: "again.json")
        invariant(again == profile, "written and read back, the profile changed:\n\(String(decoding: written, as: UTF8.self))")
    } catch {
        invariant(false, "the profile as written does not read back: \(error)")
    }
    _ = profile.mismatches(colorimetry: Colorimetry(matrix: .bt601, range: .full), width: 640, height: 480)
    var calibrated: [CalibratedSample] = []
    for target in [nil, target] {
        profile.calibrate(samples, target: target, into: &calibrated)
        for sample in calibrated {
            let xyz = sample.color.xyz
            invariant(
                [xyz.x, xyz.y, xyz.z].allSatisfy { abs($0) <= CameraProfile.maximumXYZ },
                "a loaded profile made XYZ \(xyz), past \(CameraProfile.maximumXYZ)")
        }
        _ = SampleJSON.object(
            frame: 0, timestamp: 0, colorimetry: profile.colorimetry, samples: samples, calibrated: calibrated)
    }
    return 0
}
