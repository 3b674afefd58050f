import Eyedropper
import EyedropperCapture
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

/// The camera-control endpoints and status fields, in process, where there is no
/// camera: the test pattern (not a camera) and a camera that cannot be opened. Setting a real
/// camera's controls through them is tested against vivid in the VM (Tests/VM/guest-serve.sh).
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ControlsEndpointTests {
    static let small = TestSource.testPattern(width: 320, height: 240)

    /// The test pattern has no controls: the listing is an empty array, not an error. Catches a
    /// 409 or 404 for the listing, or a body that is not the array `controls --format json` prints.
    @Test func listingOfANonCameraIsEmpty() async throws {
        try await withServer(serveConfiguration(Self.small)) { client in
            let response = try await client.get("/api/v1/controls")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(response.text == "[]")
        }
    }

    /// Setting or locking controls of a source that is not a camera is 409 with the JSON error
    /// every endpoint speaks. Catches a 200 that pretends to have set something, a 500, or a 400
    /// that blames the request.
    @Test(arguments: [("PUT", "/api/v1/controls"), ("POST", "/api/v1/controls/lock")])
    func settingANonCameraIsAConflict(method: String, target: String) async throws {
        try await withServer(serveConfiguration(Self.small)) { client in
            let response =
                method == "PUT"
                ? try await client.put(target, body: #"{"brightness": 128}"#)
                : try await client.post(target, body: ByteBuffer())
            #expect(response.status == .conflict)
            #expect(response.headers[.contentType] == "application/json")
            #expect(
                response.text
                    == #"{"error":"testpattern is not a camera: it has no controls to set (serve a capture device, --source \/dev\/videoN)"}"#
            )
        }
    }

    /// A body that is not a JSON object of names and whole numbers, booleans or strings is 400
    /// (before the source is even asked), naming the control whose value is at fault. Catches a
    /// fraction rounded into a setting, a 409 or 500 for a bad request, or the wrong key named.
    @Test(
        arguments: [
            ("not json", nil), ("[1, 2]", nil), (#"{"brightness": 1.5}"#, "brightness"),
            (#"{"contrast": 3, "brightness": [1]}"#, "brightness"), (#"{"brightness": null}"#, "brightness"), ("", nil),
        ] as [(String, String?)])
    func malformedBodyIsBadRequest(body: String, parameter: String?) async throws {
        try await withServer(serveConfiguration(Self.small)) { client in
            let response = try await client.put("/api/v1/controls", body: body)
            #expect(response.status == .badRequest, "\(body): \(response.text)")
            #expect(response.headers[.contentType] == "application/json")
            #expect(Set(response.json.keys) == (parameter == nil ? ["error"] : ["error", "parameter"]), "\(response.text)")
            #expect(response.json["parameter"] as? String == parameter)
            #expect((response.json["error"] as? String)?.hasPrefix("the body must be a JSON object of control names and values") == true)
        }
    }

    /// controls answers GET and PUT, controls/lock POST only; others are 405 naming those allowed.
    /// Catches a lock reachable by GET (a prefetching browser would lock the camera) or a 404.
    @Test func otherMethodsAreNotAllowed() async throws {
        try await withServer(serveConfiguration(Self.small)) { client in
            let delete = try await client.delete("/api/v1/controls")
            #expect(delete.status == .methodNotAllowed)
            #expect(delete.headers[.allow] == "GET, PUT")
            #expect(delete.text == #"{"error":"\/api\/v1\/controls answers GET and PUT only, not DELETE"}"#)
            let get = try await client.get("/api/v1/controls/lock")
            #expect(get.status == .methodNotAllowed)
            #expect(get.headers[.allow] == "POST")
        }
    }

    /// Status gains the --at points, the settings kept and the driver's warnings; for the test
    /// pattern no settings and no warnings. Catches points missing or swapped, or fields absent
    /// where there is no camera (the page reads them unconditionally).
    @Test func statusHasPointsAndControls() async throws {
        let points = [try SamplePoint(x: 0.0625, y: 0.25), try SamplePoint(x: 0.5625, y: 0.75)]
        try await withServer(serveConfiguration(Self.small, points: points)) { client in
            let json = try await client.get("/api/v1/status").json
            #expect(json["points"] as? [[Double]] == [[0.0625, 0.25], [0.5625, 0.75]], "\(json)")
            #expect((json["controls"] as? [String: String])?.isEmpty == true, "\(json)")
            #expect((json["controlWarnings"] as? [String])?.isEmpty == true, "\(json)")
        }
    }

    /// A camera that cannot be opened: every controls endpoint is 503 naming the device, and
    /// status lists the settings the server will apply once it opens. Catches a 500, a 400 that
    /// blames the request, or settings from the command line not reported.
    @Test func unopenableCameraIsServiceUnavailable() async throws {
        var configuration = serveConfiguration(.missingCamera)
        configuration.source.controls = [
            ControlSetting(name: "brightness", value: "10"), ControlSetting(name: "exposure_auto", value: "1"),
        ]
        try await withServer(configuration, waitForFrame: false) { client in
            let responses = [
                try await client.get("/api/v1/controls"),
                try await client.put("/api/v1/controls", body: #"{"contrast": 3}"#),
                try await client.post("/api/v1/controls/lock", body: ByteBuffer()),
            ]
            for response in responses {
                #expect(response.status == .serviceUnavailable, "\(response.text)")
                #expect(
                    (response.json["error"] as? String)?.contains("/dev/eyedropper-no-such-camera: no such device") == true,
                    "\(response.text)")
            }
            let status = try await client.get("/api/v1/status").json
            #expect(status["controls"] as? [String: String] == ["brightness": "10", "exposure_auto": "1"], "\(status)")
        }
    }

    /// Controls or --lock asked of the test pattern: the application is not built (the command
    /// exits 64 before listening), rather than a server whose capture fails. Catches the check
    /// left to the capture thread.
    @Test(arguments: [false, true])
    func controlsOnANonCameraFailAtStart(lock: Bool) throws {
        var configuration = serveConfiguration(Self.small)
        if lock {
            configuration.source.lock = true
        } else {
            configuration.source.controls = [ControlSetting(name: "brightness", value: "1")]
        }
        #expect(throws: ControlError(device: nil, .notACamera("testpattern"))) { try buildApplication(configuration) }
    }
}
