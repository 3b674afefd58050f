import EyedropperTestSupport
import Foundation
import Testing

/// The camera-control options where no camera is needed to judge them: each mistake one line on
/// stderr with its exit status, and nothing on stdout. (With a camera: Tests/VM/guest-controls.sh.)
@Suite struct ControlsCommandTests {
    private func expectRefusal(_ arguments: [String], status: Int32, _ message: String) throws {
        let result = try runEyedropper(arguments)
        #expect(result.status == status, "\(arguments)")
        #expect(result.stdout == "")
        #expect(result.stderr == "eyedropper: \(message)\n")
    }

    @Test func controlsOnASourceThatIsNotACameraAreAUsageError() throws {
        let message =
            "testpattern is not a camera: camera controls (--control, --controls, --lock) need a capture device (--source /dev/videoN)"
        try expectRefusal(["sample", "--source", "testpattern", "--control", "brightness=1"], status: 64, message)
        try expectRefusal(["snapshot", "--source", "testpattern", "--lock", "--out", "/tmp/never.jpg"], status: 64, message)
        try expectRefusal(["bench", "--source", "testpattern", "--control", "gain=1"], status: 64, message)
        // serve says so before it listens, not as a capture that reports "failed" (the command
        // would not exit at all, and the test would time out).
        for arguments in [["--control", "brightness=1"], ["--lock"]] {
            try expectRefusal(["serve", "--source", "testpattern", "--listen", "127.0.0.1:0"] + arguments, status: 64, message)
        }
    }

    @Test func aSettingThatIsNotNameEqualsValueIsAUsageError() throws {
        try expectRefusal(
            ["sample", "--control", "brightness"], status: 64,
            "--control brightness: give NAME=VALUE, e.g. brightness=128 (several: brightness=128,contrast=32)")
    }

    @Test func aControlsFileMissingOrNotAnObjectIsNamed() throws {
        let scratch = try ScratchDirectory()
        try expectRefusal(
            ["sample", "--source", "testpattern", "--controls", scratch.file("none.json")], status: 66,
            "\(scratch.file("none.json")): no such file")
        let fractional = scratch.file("fractional.json")
        try Data(#"{"gain": 1.5}"#.utf8).write(to: URL(fileURLWithPath: fractional))
        try expectRefusal(
            ["sample", "--source", "testpattern", "--controls", fractional], status: 65,
            #"\#(fractional): not a JSON object of control names and values, e.g. {"brightness": 128, "auto_exposure": 1}"#)
        let array = scratch.file("array.json")
        try Data(#"[1, 2]"#.utf8).write(to: URL(fileURLWithPath: array))
        #expect(try runEyedropper(["sample", "--source", "testpattern", "--controls", array]).status == 65)
    }

    @Test func controlsOfSomethingThatIsNotACameraSayWhat() throws {
        try expectRefusal(
            ["controls", "--device", "/dev/null"], status: 66,
            "/dev/null: not a video capture device (an output, metadata or other node): `eyedropper devices` lists capture devices")
        try expectRefusal(
            ["controls", "--device", "/dev/video99"], status: 66,
            "/dev/video99: no such device: is the camera plugged in? `eyedropper devices` lists the ones there are")
    }
}
