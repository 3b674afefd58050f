import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing

/// The command line's contract kept visible: every subcommand's stdout, stderr and exit status on
/// the test pattern and a fixed .y4m (Tests/Golden/fixed.y4m), compared with the files in
/// Tests/Golden/cli. A change to any of them fails here with the diff; a deliberate one is made by
/// running with EYEDROPPER_UPDATE_GOLDEN=1, which rewrites the files for the change to show them.
@Suite struct ContractGoldenTests {
    /// One run of the command: its name is the golden file's.
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: [String]
        var testDescription: String { name }
    }

    static let fixed = Golden.directory + "/fixed.y4m"
    /// The palettes the package ships.
    static let css = Golden.directory + "/../../Packaging/palettes/css-named-colors.json"
    static let colorChecker = Golden.directory + "/../../Packaging/palettes/colorchecker-classic-24.json"

    static let cases: [Case] =
        [
            // sample: each format, the options that shape a line, and the test pattern's default.
            Case(name: "sample-default", arguments: ["sample"]),
            Case(
                name: "sample-json-points",
                arguments: ["sample", "--source", "testpattern", "--at", "0.1,0.5", "--at", "0.9,0.5", "--radius", "3"]),
            Case(
                name: "sample-csv", arguments: ["sample", "--source", "testpattern", "--format", "csv", "--at", "0.3,0.2", "--radius", "1"]),
            Case(
                name: "sample-text",
                arguments: ["sample", "--source", "testpattern", "--format", "text", "--at", "0.3,0.2", "--at", "0.5,0.9"]),
            Case(
                name: "sample-fixed-json", arguments: ["sample", "--source", fixed, "--at", "0.1,0.1", "--at", "0.9,0.9", "--radius", "2"]),
            Case(name: "sample-fixed-csv", arguments: ["sample", "--source", fixed, "--format", "csv", "--at", "0.5,0.5"]),
            Case(name: "sample-fixed-text", arguments: ["sample", "--source", fixed, "--format", "text", "--at", "0.5,0.5"]),
            Case(name: "sample-fixed-every", arguments: ["sample", "--source", fixed, "--every", "2", "--at", "0.2,0.7"]),
            Case(
                name: "sample-fixed-average",
                arguments: ["sample", "--source", fixed, "--average", "2", "--at", "0.2,0.7", "--radius", "1"]),
            Case(
                name: "sample-fixed-average-csv",
                arguments: ["sample", "--source", fixed, "--average", "3", "--format", "csv", "--at", "0.2,0.7"]),
            Case(
                name: "sample-fixed-overrides",
                arguments: ["sample", "--source", fixed, "--matrix", "bt709", "--range", "full", "--frames", "1", "--at", "0.6,0.4"]),
            Case(
                name: "sample-target-pass",
                arguments: [
                    "sample", "--source", "testpattern", "--at", "0.5,0.5", "--target", "#bfbf00", "--tolerance", "60", "--profile",
                    "$PROFILE",
                ]),
            Case(
                name: "sample-target-fail",
                arguments: ["sample", "--source", "testpattern", "--at", "0.5,0.5", "--target", "#0000ff", "--profile", "$PROFILE"]),
            Case(
                name: "sample-profile-csv",
                arguments: ["sample", "--source", "testpattern", "--format", "csv", "--at", "0.05,0.3", "--profile", "$PROFILE"]),
            Case(
                name: "sample-profile-text",
                arguments: [
                    "sample", "--source", "testpattern", "--format", "text", "--at", "0.05,0.3", "--profile", "$PROFILE", "--target",
                    "50,0,0",
                ]),
            // A white reference (its colour given, as $PROFILE recorded none) and named colours.
            Case(
                name: "sample-reference-json",
                arguments: [
                    "sample", "--source", "testpattern", "--at", "0.3125,0.25", "--radius", "2", "--profile", "$PROFILE",
                    "--white-reference", "0.0625,0.25", "--white-reference-lab", "80,0,0",
                ]),
            Case(
                name: "sample-reference-csv",
                arguments: [
                    "sample", "--source", "testpattern", "--format", "csv", "--at", "0.3125,0.25", "--profile", "$PROFILE",
                    "--white-reference", "0.0625,0.25", "--white-reference-lab", "80,0,0", "--reference-model", "diagonal",
                ]),
            Case(
                name: "sample-reference-drift-text",
                arguments: [
                    "sample", "--source", "testpattern", "--format", "text", "--at", "0.3125,0.25", "--profile", "$PROFILE",
                    "--white-reference", "0.0625,0.25", "--white-reference-lab", "70,0,0", "--max-drift", "1", "--target", "50,0,0",
                    "--tolerance", "100",
                ]),
            Case(
                name: "sample-palette-json",
                arguments: [
                    "sample", "--source", "testpattern", "--at", "0.0625,0.25", "--at", "0.3125,0.25", "--palette", css, "--max-delta-e",
                    "3",
                ]),
            Case(
                name: "sample-palette-csv",
                arguments: [
                    "sample", "--source", "testpattern", "--format", "csv", "--at", "0.0625,0.25", "--profile", "$PROFILE", "--palette",
                    colorChecker,
                ]),
            Case(
                name: "sample-palette-text",
                arguments: [
                    "sample", "--source", "testpattern", "--format", "text", "--at", "0.0625,0.25", "--at", "0.3125,0.25", "--palette", css,
                ]),
            Case(
                name: "calibrate-white-reference",
                arguments: [
                    "calibrate", "--source", "$SCRATCH/chart.y4m", "--matrix", "bt601", "--frames", "2", "--out", "$SCRATCH/made.json",
                    "--white-reference", "0.05,0.5", "$CORNERS",
                ]),
            // The other jobs.
            Case(name: "snapshot-fixed", arguments: ["snapshot", "--source", fixed, "--frames", "2", "--out", "$SCRATCH/frame-%d.jpg"]),
            Case(name: "snapshot-ppm", arguments: ["snapshot", "--source", fixed, "--frames", "1", "--out", "$SCRATCH/frame.ppm"]),
            Case(name: "bench-text", arguments: ["bench", "--source", "testpattern", "--size", "64x32", "--frames", "3"]),
            Case(
                name: "bench-json", arguments: ["bench", "--source", "testpattern", "--size", "64x32", "--frames", "3", "--format", "json"]),
            Case(name: "bench-short-file", arguments: ["bench", "--source", fixed, "--frames", "3"]),
            // Recording: what it says, and the file read back (the same lines as sample-fixed-json,
            // told the matrix now by the file's own tag).
            Case(name: "record-fixed", arguments: ["record", "--source", fixed, "--out", "$SCRATCH/rec.y4m"]),
            Case(
                name: "sample-record-fixed",
                arguments: ["sample", "--source", fixed, "--record", "$SCRATCH/rec.y4m", "--frames", "2", "--at", "0.1,0.1"]),
            Case(
                name: "calibrate-json",
                arguments: [
                    "calibrate", "--source", "$SCRATCH/chart.y4m", "--matrix", "bt601", "--frames", "2", "--format", "json", "--out",
                    "$SCRATCH/made.json", "$CORNERS",
                ]),
            Case(
                name: "calibrate-text",
                arguments: [
                    "calibrate", "--source", "$SCRATCH/chart.y4m", "--matrix", "bt601", "--frames", "2", "--out", "$SCRATCH/made.json",
                    "$CORNERS",
                ]),
            Case(name: "calibrate-no-corners", arguments: ["calibrate", "--source", fixed, "--out", "$SCRATCH/p.json"]),
            Case(
                name: "calibrate-found",
                arguments: [
                    "calibrate", "--source", "$SCRATCH/chart.y4m", "--matrix", "bt601", "--frames", "2", "--out", "$SCRATCH/made.json",
                ]),
            Case(name: "chart-json", arguments: ["chart", "--source", "$SCRATCH/chart.y4m", "--matrix", "bt601", "--frames", "2"]),
            Case(name: "chart-none", arguments: ["chart", "--source", fixed, "--frames", "2"]),
            Case(name: "devices", arguments: ["devices"]),
            Case(name: "devices-json", arguments: ["devices", "--format", "json"]),
            Case(name: "formats-missing", arguments: ["formats", "--device", "/dev/eyedropper-no-such-camera"]),
            Case(name: "controls-missing", arguments: ["controls", "--device", "/dev/eyedropper-no-such-camera"]),
            // Help, for each subcommand: what a user reads first.
            Case(name: "help", arguments: ["--help"]),
        ]
        + ["sample", "calibrate", "chart", "snapshot", "record", "bench", "serve", "devices", "formats", "controls"].map {
            Case(name: "help-\($0)", arguments: [$0, "--help"])
        } + [
            // Errors: one per kind of exit status the command line gives without a camera or network.
            Case(name: "error-frames-zero", arguments: ["sample", "--frames", "0"]),
            Case(name: "error-bad-point", arguments: ["sample", "--at", "1.5,0.2"]),
            Case(name: "error-every-average", arguments: ["sample", "--every", "2", "--average", "2"]),
            Case(name: "error-unknown-option", arguments: ["sample", "--colour", "red"]),
            Case(name: "error-missing-file", arguments: ["sample", "--source", "/nonexistent/clip.y4m"]),
            Case(name: "error-damaged-y4m", arguments: ["sample", "--source", "$SCRATCH/damaged.y4m"]),
            Case(name: "error-truncated-y4m", arguments: ["sample", "--source", "$SCRATCH/truncated.y4m"]),
            Case(name: "error-missing-profile", arguments: ["sample", "--profile", "$SCRATCH/none.json"]),
            Case(name: "error-damaged-profile", arguments: ["sample", "--profile", "$SCRATCH/damaged-profile.json"]),
            Case(name: "error-target-without-profile", arguments: ["sample", "--target", "#123456"]),
            Case(name: "error-bad-target", arguments: ["sample", "--target", "#12345", "--profile", "$PROFILE"]),
            Case(
                name: "error-unwritable-snapshot",
                arguments: ["snapshot", "--source", fixed, "--frames", "1", "--out", "/nonexistent/dir/f.jpg"]),
            Case(name: "error-white-reference-without-profile", arguments: ["sample", "--white-reference", "0.5,0.5"]),
            Case(
                name: "error-white-reference-not-recorded", arguments: ["sample", "--profile", "$PROFILE", "--white-reference", "0.5,0.5"]),
            Case(name: "error-missing-palette", arguments: ["sample", "--palette", "$SCRATCH/none.json"]),
            Case(name: "error-bad-palette", arguments: ["sample", "--palette", "$SCRATCH/bad-palette.csv"]),
            Case(name: "error-max-delta-e-without-palette", arguments: ["sample", "--max-delta-e", "3"]),
            Case(name: "error-missing-device", arguments: ["sample", "--source", "/dev/eyedropper-no-such-camera"]),
            // Port 1 (tcpmux) listens on no machine this runs on: refused at once.
            Case(name: "error-unreachable-camera", arguments: ["sample", "--source", "rtsp://127.0.0.1:1/stream"]),
            Case(name: "error-bad-source", arguments: ["sample", "--source", "camera.mp4"]),
            Case(name: "error-record-not-y4m", arguments: ["record", "--out", "$SCRATCH/clip.mp4"]),
            Case(name: "error-serve-bad-listen", arguments: ["serve", "--listen", "127.0.0.1:70000"]),
            Case(name: "error-serve-open-without-token", arguments: ["serve", "--listen", "0.0.0.0:0"]),
            Case(name: "error-serve-missing-token-file", arguments: ["serve", "--token-file", "$SCRATCH/none.token"]),
            Case(
                name: "error-serve-missing-certificate",
                arguments: ["serve", "--tls-cert", "$SCRATCH/none.pem", "--tls-key", "$SCRATCH/none.key"]),
            Case(name: "error-serve-bad-config-line", arguments: ["serve", "--config", "$SCRATCH/dashes.conf"]),
            Case(name: "error-serve-bad-config-option", arguments: ["serve", "--config", "$SCRATCH/unknown.conf"]),
            Case(name: "error-mqtt-bad-url", arguments: ["sample", "--mqtt", "ftp://127.0.0.1"]),
            Case(name: "error-osc-bad-peer", arguments: ["sample", "--osc", "nohost"]),
        ]

    @Test(arguments: cases) func commandKeepsItsContract(_ testCase: Case) throws {
        let scratch = try ScratchDirectory()
        let corners = try Self.prepare(scratch)
        let arguments = testCase.arguments.flatMap { argument in
            argument == "$CORNERS"
                ? corners.flatMap { ["--corner", "\($0.x),\($0.y)"] }
                : [
                    argument.replacingOccurrences(of: "$SCRATCH", with: scratch.path)
                        .replacingOccurrences(of: "$PROFILE", with: scratch.file("profile.json"))
                ]
        }
        let result = try runEyedropper(arguments)
        var record = "$ eyedropper \(testCase.arguments.joined(separator: " "))\nexit: \(result.status)\n"
        record += "--- stdout\n\(result.stdout)--- stderr\n\(result.stderr)"
        if testCase.name.hasPrefix("snapshot") {
            // What the files written hold: their names and sizes, and the first JPEG's pixels as
            // libturbojpeg's output for a fixed input and quality is fixed too.
            for name in try scratch.names() where name.hasPrefix("frame") {
                let bytes = try ScratchDirectory.read(scratch.file(name))
                record += "--- file \(name): \(bytes.count) bytes, fnv1a \(String(Golden.fnv1a(bytes), radix: 16))\n"
            }
        }
        try Golden.check(Golden.mask(record, scratch: scratch.path), file: "cli/\(testCase.name).txt")
    }

    /// The files the cases read: a profile for the test pattern, a damaged .y4m and profile, and a
    /// simulated camera's chart (the corners it returns are its patches').
    static func prepare(_ scratch: ScratchDirectory) throws -> [SamplePoint] {
        let profile = try simulatedProfile(colorimetry: .init(matrix: .bt709, range: .limited), width: 1280, height: 720)
        try ScratchDirectory.write(profile.json(), to: scratch.file("profile.json"))
        try writeDamagedProfile(from: scratch.file("profile.json"), to: scratch.file("damaged-profile.json"))
        try ScratchDirectory.write(Array("YUV4MPEG2 W64 Hx F25:1\n".utf8), to: scratch.file("damaged.y4m"))
        try ScratchDirectory.write(Array("name,hex\nred,#ff0000\ngreen,#00ff0\n".utf8), to: scratch.file("bad-palette.csv"))
        try ScratchDirectory.write(Array("source testpattern\n--listen 0.0.0.0:8080\n".utf8), to: scratch.file("dashes.conf"))
        try ScratchDirectory.write(Array("# the camera\nsource testpattern\ncolour red\n".utf8), to: scratch.file("unknown.conf"))
        let whole = try ScratchDirectory.read(fixed)
        try ScratchDirectory.write(Array(whole[..<(whole.count - 100)]), to: scratch.file("truncated.y4m"))
        return try writeChartY4M(path: scratch.file("chart.y4m"), camera: SimulatedCamera(seed: 1))
    }
}
