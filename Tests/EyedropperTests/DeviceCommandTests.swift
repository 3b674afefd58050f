import Testing

/// The paths that need no camera; the real device is tested against vivid (Tests/VM).
@Suite struct DeviceCommandTests {
    @Test func aMissingDeviceIsNamedAndExits66() throws {
        let result = try runEyedropper(["formats", "--device", "/dev/video99"])
        #expect(result.status == 66)
        #expect(result.stderr.hasPrefix("eyedropper: /dev/video99: no such device"))
        #expect(result.stdout.isEmpty)
    }

    @Test func aNodeThatIsNotACameraIsRefusedByName() throws {
        let result = try runEyedropper(["formats", "--device", "/dev/null"])
        #expect(result.status == 66)
        #expect(result.stderr == "eyedropper: /dev/null: not a video capture device (an output, metadata or other node): `eyedropper devices` lists capture devices\n")
    }

    @Test func devicesListsOnlyCaptureNodesAsJSON() throws {
        let result = try runEyedropper(["devices", "--format", "json"])
        #expect(result.status == 0)
        // One line, one array; on a machine with no camera (CI) an empty one.
        #expect(result.stdout.hasPrefix("[") && result.stdout.hasSuffix("]\n"))
        #expect(result.stdout.split(separator: "\n").count == 1)
    }
}
