import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Testing

@Suite struct CalibrationTests {
    let reference = ChartReference.colorChecker2014

    @Test func aNonColorimetricCameraIsCorrectedToWithinOneDeltaE() throws {
        let calibration = try Calibration(readings: SimulatedCamera().readings(reference.lab))
        #expect(calibration.patches.allSatisfy { $0.excluded == nil })
        #expect(calibration.fitted.mean < 0.5, "fitted \(calibration.fitted)")
        // 0.39 with the tone curve fitted to the neutrals' linear sRGB; 0.56 when it was fitted
        // to their luminance, which bent each channel by the neutrals' slight tint.
        #expect(calibration.leaveOneOut.mean < 0.5, "leave-one-out \(calibration.leaveOneOut)")
        // Uncorrected, the same camera is far off: the test's camera is not sRGB in disguise.
        let raw = zip(SimulatedCamera().readings(reference.lab), reference.lab).map { reading, lab in
            let m = reading.mean
            return CalibratedColor(xyz: SRGB.xyzD50(RGB8(r: UInt8(m.r.rounded()), g: UInt8(m.g.rounded()), b: UInt8(m.b.rounded()))))
                .lab.deltaE2000(lab)
        }
        #expect(raw.reduce(0, +) / 24 > 5, "uncorrected mean ΔE \(raw.reduce(0, +) / 24)")
        // On another reading of the same camera (other noise), as on the one fitted.
        let check = SimulatedCamera(seed: 99).readings(reference.lab)
        let errors = check.indices.map { index in
            let m = check[index].mean
            let linear = calibration.toneCurve.linear(SIMD3(m.r, m.g, m.b) / 255)
            return calibration.correction.xyz(linear).lab(white: .d50).deltaE2000(reference.lab[index])
        }
        #expect(errors.reduce(0, +) / 24 < 1.0, "check mean \(errors.reduce(0, +) / 24)")
    }

    /// A lamp to one side: the light falls across the chart. Caught: the light not estimated (it
    /// comes out even), estimated with the wrong sign or axis, applied the wrong way round (the
    /// check frame reads far off), or an even chart given a slope it does not have.
    @Test func lightFallingAcrossTheChartIsMeasuredAndAllowedFor() throws {
        let lamp = ChartLight(perColumn: -0.05, perRow: 0.025)
        // Exposed a little lower than the other tests' camera, so the white, 16% more lit, does not clip.
        var camera = SimulatedCamera()
        camera.exposure = 0.6
        let uneven = try Calibration(readings: camera.readings(reference.lab, light: lamp))
        #expect(uneven.patches.allSatisfy { $0.excluded == nil })
        #expect(abs(uneven.light.perColumn - lamp.perColumn) < 0.004, "per column \(uneven.light.perColumn)")
        #expect(abs(uneven.light.perRow - lamp.perRow) < 0.004, "per row \(uneven.light.perRow)")
        #expect(abs(uneven.light.spread - lamp.spread) < 0.02, "spread \(uneven.light.spread), lit \(lamp.spread)")
        let even = try Calibration(readings: camera.readings(reference.lab))
        #expect(abs(even.light.perColumn) < 0.004 && abs(even.light.perRow) < 0.004, "even chart: \(even.light)")
        // The profile made under the lamp reads an evenly lit chart (another reading, other noise)
        // to within the bar: 0.77 here, against 0.50 for the even chart's profile, whose own
        // chart the check chart is.
        camera.seed = 99
        let check = camera.readings(reference.lab)
        func checkMean(_ calibration: Calibration) -> Double {
            check.indices.map { index in
                let m = check[index].mean
                let linear = calibration.toneCurve.linear(SIMD3(m.r, m.g, m.b) / 255)
                return calibration.correction.xyz(linear).lab(white: .d50).deltaE2000(reference.lab[index])
            }.reduce(0, +) / 24
        }
        #expect(checkMean(uneven) < 1.0, "uneven \(checkMean(uneven)), even \(checkMean(even))")
    }

    @Test func theModelAndCurveChosenAreTheOnesWithTheLeastLeaveOneOutError() throws {
        let calibration = try Calibration(readings: SimulatedCamera().readings(reference.lab))
        #expect(calibration.candidates.map(\.model) == CorrectionModel.allCases + CorrectionModel.allCases)
        #expect(calibration.candidates.map(\.curve) == [.neutrals, .neutrals, .neutrals, .patches, .patches, .patches])
        let least = calibration.candidates.min { $0.leaveOneOut.mean < $1.leaveOneOut.mean }!
        #expect(calibration.model == least.model)
        #expect(calibration.curveSource == least.curve)
        #expect(calibration.leaveOneOut == least.leaveOneOut)
        // Every patch was predicted once while left out.
        #expect(calibration.patches.allSatisfy { $0.deltaELeaveOneOut != nil })
    }

    @Test func aModelAskedForIsTheModelFitted() throws {
        for model in CorrectionModel.allCases {
            let calibration = try Calibration(readings: SimulatedCamera().readings(reference.lab), model: model)
            #expect(calibration.model == model)
            #expect(calibration.correction.matrix.allSatisfy { $0.count == model.termCount })
            #expect(calibration.candidates.map(\.model) == [model, model])
        }
    }

    /// A curve that waves between the greys (three periods over its range, up to 7.5 levels off a
    /// power law): six neutral patches cannot see the wave, the colour patches' channels, which
    /// read levels between theirs, can. Judged on colours off the chart: the chart's own at half
    /// and 70 % of the light, read without noise (0.98 through every patch, 3.07 through the
    /// greys). Caught: the shape through every patch never tried, never chosen, or fitted so
    /// stiffly or so weighted that it follows the greys alone.
    @Test func aCurveThatBendsBetweenTheGreysIsFollowedThroughEveryPatch() throws {
        var camera = SimulatedCamera()
        camera.wave = 0.03
        let readings = camera.readings(reference.lab)
        let chosen = try Calibration(readings: readings)
        let greys = try Calibration(readings: readings, curve: .neutrals)
        #expect(chosen.curveSource == .patches)
        #expect(greys.curveSource == .neutrals && greys.candidates.allSatisfy { $0.curve == .neutrals })
        func offTheChart(_ calibration: Calibration) -> Double {
            var errors: [Double] = []
            for scale in [0.5, 0.7] {
                for lab in reference.lab {
                    let xyz = CIEXYZ(lab, white: .d50)
                    let truth = CIEXYZ(x: xyz.x * scale, y: xyz.y * scale, z: xyz.z * scale)
                    let linear = calibration.toneCurve.linear(camera.camera(truth))
                    errors.append(calibration.correction.xyz(linear).lab(white: .d50).deltaE2000(truth.lab(white: .d50)))
                }
            }
            return errors.reduce(0, +) / Double(errors.count)
        }
        #expect(offTheChart(chosen) < 0.75 * offTheChart(greys), "shared \(offTheChart(chosen)), greys \(offTheChart(greys))")
    }

    @Test func clippedAndNonUniformPatchesAreLeftOutAndNamed() throws {
        var readings = SimulatedCamera().readings(reference.lab)
        // Patch 16 (yellow) overexposed: every pixel's red at 255.
        var clipped = PatchStatistics()
        for _ in 0..<400 { clipped.merge(PatchStatistics(RGB8(r: 255, g: 230, b: 40))) }
        readings[15] = clipped
        // Patch 3 (blue sky) half covered by glare.
        var glare = PatchStatistics()
        for index in 0..<400 { glare.merge(PatchStatistics(index % 2 == 0 ? RGB8(r: 240, g: 240, b: 240) : RGB8(r: 90, g: 120, b: 150))) }
        readings[2] = glare
        let calibration = try Calibration(readings: readings)
        #expect(calibration.patches[15].excluded?.hasPrefix("clipped") == true, "\(calibration.patches[15].excluded ?? "used")")
        #expect(calibration.patches[2].excluded?.hasPrefix("not uniform") == true, "\(calibration.patches[2].excluded ?? "used")")
        #expect(calibration.patches.filter { $0.excluded != nil }.map(\.number) == [3, 16])
        #expect(calibration.patches[2].deltaELeaveOneOut == nil && calibration.patches[15].deltaELeaveOneOut == nil)
        // The fit is still good on the rest: the bad patches did not pull it.
        #expect(calibration.fitted.mean < 1.0, "fitted \(calibration.fitted)")
    }

    @Test func tooFewUsablePatchesIsAnErrorThatNamesThem() {
        var readings = SimulatedCamera().readings(reference.lab)
        for index in 0..<17 { readings[index] = PatchStatistics() }
        #expect {
            try Calibration(readings: readings)
        } throws: { error in
            guard case CalibrationError.tooFewPatches(let used, let excluded) = error else { return false }
            return used == 7 && excluded.count == 17 && "\(error)".contains("patch 1 no pixels read")
        }
    }

    @Test func aReferenceOfTheWrongSizeOrOrderIsRefused() {
        #expect(throws: ChartReferenceError.patchCount(23)) {
            try ChartReference(name: "short", lab: Array(ChartReference.colorChecker2014.lab.prefix(23)))
        }
        var swapped = ChartReference.colorChecker2014.lab
        swapped.swapAt(19, 20)
        #expect(throws: ChartReferenceError.neutralsNotDescending(patch: 21)) { try ChartReference(name: "swapped", lab: swapped) }
    }

    /// Found by FuzzReference: patch 10's b* as -20E87 (finite) was accepted, and calibrating
    /// against it gave NaN colour differences, on which writing the profile trapped
    /// (`calibrate --reference` died of SIGILL instead of exiting 65).
    @Test func aReferenceWithAnAOrBNoColourHasIsRefused() throws {
        var lab = reference.lab.map { [$0.l, $0.a, $0.b] }
        lab[9][2] = -20E87
        let json = #"{"name": "mine", "lab": \#(lab)}"#
        #expect(
            throws: CalibrationFileError.malformed(
                what: "reference", path: "mine.json", field: "lab",
                reason: "patch 10's L*a*b* (30.1, 22.54, -2e+88) is not a colour: L* must be in 0...100, a* and b* within ±200")
        ) { try ChartReference.decode(Array(json.utf8), path: "mine.json") }
        // The bound itself is a colour.
        lab[9][2] = -200
        #expect(try ChartReference.decode(Array(#"{"name": "mine", "lab": \#(lab)}"#.utf8), path: "mine.json").lab[9].b == -200)
    }
}
