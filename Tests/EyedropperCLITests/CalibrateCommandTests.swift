import Eyedropper
import EyedropperCalibration
import EyedropperJPEG
import EyedropperTestSupport
import Foundation
import Testing

/// `calibrate`, then `sample --profile` and `--target`, through the built executable on chart
/// frames of a simulated camera.
@Suite struct CalibrateCommandTests {
    let scratch: ScratchDirectory
    let corners: [SamplePoint]

    init() throws {
        scratch = try ScratchDirectory()
        corners = try writeChartY4M(path: scratch.file("chart.y4m"), camera: SimulatedCamera(seed: 1))
        try writeChartY4M(path: scratch.file("check.y4m"), camera: SimulatedCamera(seed: 2))
    }

    private var cornerArguments: [String] { corners.flatMap { ["--corner", "\($0.x),\($0.y)"] } }

    private func calibrate(_ extra: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        try runEyedropper(
            [
                "calibrate", "--source", scratch.file("chart.y4m"), "--matrix", "bt601", "--frames", "3",
                "--out", scratch.file("profile.json"),
            ] + cornerArguments + extra)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func calibratesThenSamplesCalibratedColourOnAnotherFrame() throws {
        let result = try calibrate(["--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        let patches = try #require(report["patches"] as? [[String: Any]])
        #expect(patches.count == 24)
        #expect(patches.allSatisfy { $0["used"] as? Bool == true })
        let fitted = try #require(report["fitted"] as? [String: Double])
        #expect(try #require(fitted["mean"]) < 1.0, "\(fitted)")
        #expect(report["chosenBy"] as? String == "leave-one-out")
        let profile = try json(String(decoding: ScratchDirectory.read(scratch.file("profile.json")), as: UTF8.self))
        #expect(profile["format"] as? String == "eyedropper-camera-profile" && profile["version"] as? Int == 1)
        #expect((profile["colorimetry"] as? [String: String]) == ["matrix": "bt601", "range": "limited"])

        // The other file: other noise. Calibrated L*a*b* of each patch against the reference.
        let points = patches.flatMap { ["--at", "\($0["x"]!),\($0["y"]!)"] }
        let sample = try runEyedropper(
            [
                "sample", "--source", scratch.file("check.y4m"), "--matrix", "bt601", "--radius", "8", "--frames", "3", "--average", "3",
                "--profile", scratch.file("profile.json"),
            ] + points)
        #expect(sample.status == 0, "\(sample.stderr)")
        #expect(sample.stderr.isEmpty, "no mismatch warning for the same colorimetry and size: \(sample.stderr)")
        let line = try json(sample.stdout)
        let samples = try #require(line["samples"] as? [[String: Any]])
        var total = 0.0
        for (index, entry) in samples.enumerated() {
            let calibrated = try #require(entry["calibrated"] as? [String: Any])
            let lab = try #require(calibrated["lab"] as? [Double])
            // xyz's Y is the lightness's: L* = 116 (Y/100)^(1/3) - 16 above the toe.
            let xyz = try #require(calibrated["xyz"] as? [Double])
            #expect(abs(116 * Foundation.cbrt(xyz[1] / 100) - 16 - lab[0]) < 0.01, "patch \(index + 1): xyz \(xyz), lab \(lab)")
            // hex is srgb rounded to levels (from the unrounded value: 39.4996, printed 39.50, is 0x27).
            let srgb = try #require(calibrated["srgb"] as? [Double])
            let hex = try #require(calibrated["hex"] as? String)
            let levels = stride(from: 1, to: 7, by: 2).map { Int(hex.dropFirst($0).prefix(2), radix: 16) ?? -1 }
            #expect(zip(levels, srgb).allSatisfy { abs(Double($0) - $1) <= 0.505 }, "patch \(index + 1): hex \(hex), srgb \(srgb)")
            // Cyan (18) lies outside sRGB, clamped; the neutrals inside.
            if index == 17 || (18...23).contains(index) {
                #expect(calibrated["inGamut"] as? Bool == (index != 17), "patch \(index + 1): \(calibrated)")
            }
            #expect(entry["deltaE"] == nil, "no deltaE without --target")
            total += CIELab(l: lab[0], a: lab[1], b: lab[2]).deltaE2000(ChartReference.colorChecker2014.lab[index])
        }
        #expect(total / 24 < 1.0, "mean CIEDE2000 on the check frame: \(total / 24)")
    }

    @Test func aTargetGatesTheExitStatus() throws {
        #expect(try calibrate().status == 0)
        let white = corners[3]  // patch 19
        let base = [
            "sample", "--source", scratch.file("check.y4m"), "--matrix", "bt601", "--radius", "8", "--frames", "1",
            "--profile", scratch.file("profile.json"), "--at", "\(white.x),\(white.y)",
        ]
        let reference = ChartReference.colorChecker2014.lab[18]
        let pass = try runEyedropper(base + ["--target", "\(reference.l),\(reference.a),\(reference.b)"])
        #expect(pass.status == 0, "\(pass.stdout) \(pass.stderr)")
        let passed = try #require((try json(pass.stdout)["samples"] as? [[String: Any]])?.first)
        #expect(passed["pass"] as? Bool == true)
        #expect(try #require(passed["deltaE"] as? Double) < 2)
        let fail = try runEyedropper(base + ["--target", "#ff0000"])
        #expect(fail.status == 1, "\(fail.stdout) \(fail.stderr)")
        let failed = try #require((try json(fail.stdout)["samples"] as? [[String: Any]])?.first)
        #expect(failed["pass"] as? Bool == false)
        #expect(try #require(failed["deltaE"] as? Double) > 30)
        // A tolerance wide enough passes even red.
        #expect(try runEyedropper(base + ["--target", "#ff0000", "--tolerance", "200"]).status == 0)
    }

    @Test func theTextReportNamesEveryPatchAndTheSummaries() throws {
        let result = try calibrate()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("19 white 9.5") || $0.hasPrefix(" 1 dark skin") }.count == 2, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("ΔE00 leave-one-out: mean ") })
        #expect(lines.last == "wrote \(scratch.file("profile.json"))")
    }

    @Test func thePictureIsTheFrameOverTheGrid() throws {
        let result = try calibrate(["--picture", scratch.file("check.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try JPEGDecoder.decode(try ScratchDirectory.read(scratch.file("check.jpg")))
        // The chart frame (640x480) on top, the grid of patches below it.
        #expect(image.width == 640 && image.height > 480 + 100, "\(image.width)x\(image.height)")
        // The frame's grey background, kept (within the JPEG's error and the noise).
        let corner = image.pixel(x: 4, y: 4)
        #expect(abs(Int(corner.r) - 128) <= 8 && abs(Int(corner.g) - 128) <= 8 && abs(Int(corner.b) - 128) <= 8, "\(corner)")
        // A path that is not a JPEG is refused before anything is read.
        let png = try calibrate(["--picture", scratch.file("check.png")])
        #expect(png.status == 64 && png.stderr.contains("--picture"), "\(png.stderr)")
    }

    /// --bracket: the chart at four exposures, one file each. The report says what the curve was
    /// measured from, and the profile keeps the measured curve (60 knots a channel, where a curve
    /// through the greys has one per grey). Without --bracket the report has no such key.
    /// Caught: --bracket read and then not used (the greys' curve in the profile), the exposures
    /// paired with the wrong files, a bracket file read at its own chart position, and exposures
    /// on a ladder of one ratio not warned of.
    @Test func aBracketMeasuresTheCurveFromEachExposure() throws {
        let factors = [1.0 / 16, 1.0 / 4, 2.5]
        var bracket: [String] = []
        for (index, factor) in factors.enumerated() {
            var camera = SimulatedCamera(seed: UInt64(10 + index))
            camera.exposure *= factor
            try writeChartY4M(path: scratch.file("exposure-\(index).y4m"), camera: camera)
            bracket += ["--bracket", "\(scratch.file("exposure-\(index).y4m"))@\(["1/16", "0.25", "2.5"][index])"]
        }
        let result = try calibrate(["--format", "json"] + bracket)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("measured the tone curve from 4 exposures"), "\(result.stderr)")
        // 1/16, 1/4, 1 and 2.5 are all near powers of 1.6 (1.6^-6, ^-3, ^0, ^2): said.
        let ladder = "warning: the exposures (×0.0625 to ×2.5) are all close to powers of 1.59: the curve measured is free to ripple"
        #expect(result.stderr.contains(ladder), "\(result.stderr)")
        let report = try json(result.stdout)
        let measured = try #require(report["bracket"] as? [String: Any], "\(report.keys)")
        #expect((measured["exposures"] as? [NSNumber])?.map(\.doubleValue) == [1, 0.0625, 0.25, 2.5], "\(measured)")
        #expect(try #require(measured["levels"] as? Int) > 150, "\(measured)")
        #expect(try #require(measured["residual"] as? Double) < 0.03, "\(measured)")
        let fitted = try #require(report["fitted"] as? [String: Double])
        #expect(try #require(fitted["mean"]) < 1.0, "\(fitted)")
        let profile = try json(String(decoding: ScratchDirectory.read(scratch.file("profile.json")), as: UTF8.self))
        let curve = try #require(profile["toneCurve"] as? [String: [String: Any]])
        #expect((curve["green"]?["points"] as? [[Double]])?.count == 60, "\(curve["green"] ?? [:])")

        let plain = try calibrate(["--format", "json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try json(plain.stdout)["bracket"] == nil)
    }

    /// Each --bracket that cannot be read as FILE@FACTOR, or repeats an exposure, is a usage
    /// error naming it, before any file is read.
    @Test func aBracketThatIsNotFileAtFactorIsAUsageError() throws {
        let chart = scratch.file("chart.y4m")
        for (value, message) in [
            (chart, "give FILE@FACTOR"), ("\(chart)@0", "is not an exposure factor above 0"), ("\(chart)@1/0", "is not an exposure factor"),
            ("chart.txt@2", "is not a source"), ("\(chart)@1", "the same exposure as --source"),
        ] {
            let result = try calibrate(["--bracket", value])
            #expect(result.status == 64 && result.stderr.contains(message), "--bracket \(value): \(result.stderr)")
        }
        let twice = try calibrate(["--bracket", "\(chart)@0.25", "--bracket", "\(chart)@1/4"])
        #expect(twice.status == 64 && twice.stderr.contains("the same exposure as \(chart)"), "\(twice.stderr)")
        // A curve asked for and one measured: caught, a --curve silently ignored (or obeyed) beside --bracket.
        let curve = try calibrate(["--bracket", "\(chart)@0.25", "--curve", "neutrals"])
        #expect(curve.status == 64 && curve.stderr.contains("--curve neutrals with --bracket"), "\(curve.stderr)")
    }

    /// A camera steps its own exposure (FACTOR alone); a file needs one recording per exposure
    /// (FILE@FACTOR). Each the wrong way round is a usage error naming what to give, before a
    /// frame is read or the device opened (there is no /dev/video9 here). The stepping itself runs
    /// on vivid (Tests/VM/guest-bracket.sh).
    /// Caught: a factor alone accepted for a file (and a default exposure guessed), a file given
    /// for a camera read as if it were the camera's, --bracket-control accepted with nothing to step.
    @Test func aCameraStepsItsOwnExposureAndAFileCannot() throws {
        let chart = scratch.file("chart.y4m")
        let alone = try calibrate(["--bracket", "1/16"])
        #expect(
            alone.status == 64 && alone.stderr.contains("--bracket 1/16: only a camera (--source /dev/videoN) steps its own exposure"),
            "\(alone.stderr)")
        let control = try calibrate(["--bracket-control", "exposure_time_absolute"])
        #expect(control.status == 64 && control.stderr.contains("give the exposures too"), "\(control.stderr)")
        let onFile = try calibrate(["--bracket", "\(chart)@1/4", "--bracket-control", "contrast"])
        #expect(onFile.status == 64 && onFile.stderr.contains("is not a camera"), "\(onFile.stderr)")
        let camera = try runEyedropper([
            "calibrate", "--source", "/dev/video9", "--out", scratch.file("p.json"), "--bracket", "\(chart)@1/4",
        ])
        #expect(
            camera.status == 64 && camera.stderr.contains("/dev/video9 steps its own exposure: give the factor alone (--bracket 1/4)"),
            "\(camera.stderr)")
    }

    @Test func cornersThatAreNotAChartAreAUsageError() throws {
        var swapped = cornerArguments
        swapped.swapAt(3, 5)  // bluish green and black: a bow tie
        let result = try runEyedropper(
            [
                "calibrate", "--source", scratch.file("chart.y4m"), "--matrix", "bt601", "--range", "limited", "--out",
                scratch.file("p.json"),
            ]
                + swapped)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("not a convex quadrilateral"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("p.json")))
        let three = try runEyedropper(["calibrate", "--out", scratch.file("p.json")] + cornerArguments.prefix(6))
        #expect(three.status == 64 && three.stderr.contains("give 4 --corner points, not 3"), "\(three.stderr)")
    }

    @Test func badProfilesAreNamedWithTheirField() throws {
        #expect(try calibrate().status == 0)
        let good = String(decoding: try ScratchDirectory.read(scratch.file("profile.json")), as: UTF8.self)
        let sample = ["sample", "--source", scratch.file("check.y4m"), "--profile"]

        let missing = try runEyedropper(sample + [scratch.file("none.json")])
        #expect(missing.status == 66 && missing.stderr.contains("none.json"), "\(missing.stderr)")

        // One row of the matrix cut short.
        try writeDamagedProfile(from: scratch.file("profile.json"), to: scratch.file("damaged.json"))
        let damaged = try runEyedropper(sample + [scratch.file("damaged.json")])
        #expect(damaged.status == 65, "\(damaged.stderr)")
        #expect(damaged.stderr.contains("damaged.json") && damaged.stderr.contains("correction.matrix"), "\(damaged.stderr)")

        // Cut in half: not JSON.
        try ScratchDirectory.write(Array(good.utf8.prefix(good.utf8.count / 2)), to: scratch.file("cut.json"))
        let cut = try runEyedropper(sample + [scratch.file("cut.json")])
        #expect(cut.status == 65 && cut.stderr.contains("cut.json") && cut.stderr.contains("not JSON"), "\(cut.stderr)")

        // A controls file is JSON, but not a profile.
        try ScratchDirectory.write(Array(#"{"brightness": 128}"#.utf8), to: scratch.file("controls.json"))
        let foreign = try runEyedropper(sample + [scratch.file("controls.json")])
        #expect(foreign.status == 65 && foreign.stderr.contains("is not an Eyedropper camera profile"), "\(foreign.stderr)")

        // Frames of another colorimetry: a warning, and the samples still come.
        let other = try runEyedropper(sample + [scratch.file("profile.json"), "--matrix", "bt709", "--range", "full"])
        #expect(other.status == 0)
        #expect(other.stderr.contains("warning: the profile was made from bt601 limited frames, these are bt709 full"), "\(other.stderr)")
    }

    @Test func yourOwnReferenceIsUsedAndABadOneIsNamed() throws {
        // The published values with patch 1 moved: the report must compare with the file's.
        var lab = ChartReference.colorChecker2014.lab.map { [$0.l, $0.a, $0.b] }
        lab[0] = [40, 10, 10]
        try ScratchDirectory.write(Array(try JSONSerialization.data(withJSONObject: lab)), to: scratch.file("mine.json"))
        let result = try calibrate(["--reference", scratch.file("mine.json"), "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let patches = try #require(try json(result.stdout)["patches"] as? [[String: Any]])
        #expect(patches[0]["reference"] as? [Double] == [40, 10, 10])
        #expect(patches[1]["reference"] as? [Double] == lab[1])

        lab[20] = [90, 0, 0]  // neutral 6.5 lighter than neutral 8
        try ScratchDirectory.write(
            Array(try JSONSerialization.data(withJSONObject: ["name": "mine", "lab": lab])), to: scratch.file("bad.json"))
        let bad = try calibrate(["--reference", scratch.file("bad.json")])
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(
            bad.stderr.contains("bad.json") && bad.stderr.contains("field lab") && bad.stderr.contains("patch 21 is not darker"),
            "\(bad.stderr)")
    }

    @Test func aTargetWithoutAProfileOrThatIsNoColourIsAUsageError() throws {
        let bare = try runEyedropper(["sample", "--target", "50,0,0"])
        #expect(bare.status == 64 && bare.stderr.contains("--target needs --profile"), "\(bare.stderr)")
        let bad = try runEyedropper(["sample", "--profile", "p.json", "--target", "#ff00"])
        #expect(bad.status == 64 && bad.stderr.contains("'#ff00' is not a colour"), "\(bad.stderr)")
        let dark = try runEyedropper(["sample", "--profile", "p.json", "--target", "120,0,0"])
        #expect(dark.status == 64 && dark.stderr.contains("L* must be in 0...100"), "\(dark.stderr)")
    }
}
