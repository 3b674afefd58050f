import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

@Suite struct CameraProfileFileTests {
    /// A fitted profile's file with one number of its correction matrix replaced.
    func profileJSON(matrixRow row: Int, column: Int, value: Double) throws -> [UInt8] {
        let profile = try simulatedProfile(colorimetry: Colorimetry(matrix: .bt601, range: .limited), width: 640, height: 480)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(profile.json())) as? [String: Any])
        var correction = try #require(object["correction"] as? [String: Any])
        var matrix = try #require(correction["matrix"] as? [[Double]])
        matrix[row][column] = value
        correction["matrix"] = matrix
        object["correction"] = correction
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// Found by FuzzProfile: a correction coefficient of 1.3 x 10^17 (finite, so accepted) made
    /// calibrated XYZ too large for the output's fixed decimals, and `sample --profile` trapped
    /// (SIGILL, exit 132) on the first line it wrote instead of exiting 65 at load.
    @Test func aProfileWhoseColoursRunPastAnyLightIsDamaged() throws {
        let bytes = try profileJSON(matrixRow: 2, column: 1, value: 132_218_071_341_339_062)
        #expect {
            try CameraProfile.decode(bytes, path: "p.json")
        } throws: { error in
            guard case .malformed("profile", "p.json", nil, let reason) = error as? CalibrationFileError else { return false }
            return reason.hasPrefix("calibrated colours reach XYZ 1.7") && reason.contains("e+17, beyond 1000000")
        }
    }

    /// The bound is far from what calibration makes: a fitted profile's coefficients are below
    /// 100, and a coefficient of 1000 still loads.
    @Test func aLargeButPossibleCoefficientLoads() throws {
        let profile = try CameraProfile.decode(profileJSON(matrixRow: 2, column: 1, value: 1000), path: "p.json")
        #expect(profile.correction.matrix[2][1] == 1000)
    }
}
