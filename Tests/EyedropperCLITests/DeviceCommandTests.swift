import EyedropperTestSupport
import Foundation
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
        #expect(
            result.stderr
                == "eyedropper: /dev/null: not a video capture device (an output, metadata or other node): `eyedropper devices` lists capture devices\n"
        )
    }

    @Test func devicesListsOnlyCaptureNodesAsJSON() throws {
        let result = try runEyedropper(["devices", "--format", "json"])
        #expect(result.status == 0)
        // One line, one array: empty on a machine with no video nodes (CI); else each entry a
        // /dev/video node with the four documented fields.
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.filter { $0.hasPrefix("video") } ?? []
        #expect(result.stdout.split(separator: "\n").count == 1 && result.stdout.hasSuffix("]\n"))
        if nodes.isEmpty {
            #expect(result.stdout == "[]\n")
        } else {
            let devices = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: String]])
            #expect(
                devices.allSatisfy {
                    Set($0.keys) == ["path", "card", "driver", "bus"] && nodes.map { "/dev/" + $0 }.contains($0["path"]!)
                })
        }
    }
}
