import Eyedropper
import EyedropperCapture
import Foundation
import Hummingbird

/// `controls`: the camera's controls, listed (GET) and set (PUT), and `controls/lock`: its
/// automatic controls switched off at the values they settled on (POST). What is set here is
/// kept by `CameraControls` and applied again at every reconnect.
struct ControlsController: Sendable {
    let source: SourceName
    /// nil: the source is not a camera.
    let controls: CameraControls?
    /// Where opening the device and its ioctls run, off Swift concurrency's threads.
    let work: BlockingWork

    /// A request body larger than this is refused: a camera has a few dozen controls.
    static let maximumBody = 64 * 1024

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.get("controls") { request, _ in try await list(request) }
        group.put("controls") { request, _ in try await set(request) }
        group.refusingMethods("controls", but: [.get, .put])
        group.post("controls/lock") { request, _ in try await lock(request) }
        group.refusingMethods("controls/lock", but: [.post])
    }

    /// The listing `eyedropper controls --format json` prints; `[]` for a source that is not a
    /// camera.
    private func list(_ request: Request) async throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        guard let controls else { return Self.json("[]") }
        let device = controls.device
        return Self.json(try await onDevice { try CameraControls.list(device: device).json })
    }

    /// A JSON object of names and values, set together (checked first, automatic controls first);
    /// answers the controls set, read back, by their listed names, sorted.
    private func set(_ request: Request) async throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        let body = try await request.body.collect(upTo: Self.maximumBody)
        let settings: [ControlSetting]
        do {
            settings = try ControlSetting.settings(json: Data(body.readableBytesView))
        } catch {
            throw ControlsFailure.malformedBody(parameter: (error as? DecodingError)?.key)
        }
        let controls = try camera()
        let set = try await onDevice { try controls.set(settings) }
        return Self.json(Self.object(set.map { ($0.name, $0.value?.json ?? "null") }))
    }

    /// Locks the automatic controls now; answers the settings it made (`{}` when none was on).
    private func lock(_ request: Request) async throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        let controls = try camera()
        let locked = try await onDevice { try controls.lockNow() }
        return Self.json(Self.object(locked.map { ($0.name, Int64($0.value).map { "\($0)" } ?? JSONText.string($0.value)) }))
    }

    private func camera() throws(ControlsFailure) -> CameraControls {
        guard let controls else { throw .notACamera(source.description) }
        return controls
    }

    /// A JSON object of names and encoded values, keys sorted like every other body of the API
    /// (one key per control: a former name and today's name asked together are one control).
    private static func object(_ fields: [(String, String)]) -> String {
        JSONText.object(Dictionary(fields, uniquingKeysWith: { $1 }).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Runs `body` (opening the camera, ioctls) on the server's blocking-work threads, as blocking
    /// work must not hold one of Swift concurrency's few threads; its errors become the answers the
    /// API gives.
    private func onDevice<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        do {
            return try await work.run { _ in try body() }
        } catch let error as ControlError {
            throw error.isUsage ? ControlsFailure.usage(error) : ControlsFailure.refused(error)
        } catch let error as CaptureError {
            throw ControlsFailure.unavailable(error)
        }
    }
}

/// Why the controls endpoints could not do what was asked, as the API answers it.
enum ControlsFailure: JSONResponseError {
    /// The body is not a JSON object of names and values (`parameter`: the key whose value is
    /// not a whole number, boolean or string): 400.
    case malformedBody(parameter: String?)
    /// A setting that cannot be made as asked (unknown control, value out of range, read-only,
    /// inactive): 400, naming the control.
    case usage(ControlError)
    /// The source is not a camera: it has no controls to set (409, a conflict with how the server
    /// was started).
    case notACamera(String)
    /// The driver refused a value Eyedropper found valid: 502, the camera being the upstream that
    /// failed.
    case refused(ControlError)
    /// The camera cannot be opened or read now (unplugged, gone): 503, like the frame endpoints
    /// while the source fails.
    case unavailable(CaptureError)

    var status: HTTPResponse.Status {
        switch self {
        case .malformedBody, .usage: .badRequest
        case .notACamera: .conflict
        case .refused: .badGateway
        case .unavailable: .serviceUnavailable
        }
    }

    var message: String {
        switch self {
        case .malformedBody:
            #"the body must be a JSON object of control names and values (whole numbers, true or false, or strings), e.g. {"brightness": 128, "auto_exposure": 1}"#
        case let .usage(error), let .refused(error): error.description
        case let .notACamera(source):
            "\(source) is not a camera: it has no controls to set (serve a capture device, --source /dev/videoN)"
        case let .unavailable(error): error.description
        }
    }

    var parameterAtFault: String? {
        switch self {
        case let .malformedBody(parameter): parameter
        case let .usage(error), let .refused(error): error.control
        case .notACamera, .unavailable: nil
        }
    }
}

extension DecodingError {
    /// The object key at fault, if the error is inside the top-level object.
    var key: String? {
        let context: Context? =
            switch self {
            case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context), let .dataCorrupted(context):
                context
            @unknown default: nil
            }
        return context?.codingPath.first?.stringValue
    }
}
