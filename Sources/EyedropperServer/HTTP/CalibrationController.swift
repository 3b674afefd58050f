import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperPipeline
import Foundation
import Hummingbird

/// `calibration` (POST): a profile fitted to the ColorChecker in the next frames, as `eyedropper
/// calibrate` fits one with no corners, written into `--profile-dir`; and `profile` (PUT): one of
/// the profiles there applied to every frame from the next on, answered once a frame is read
/// with it. The page's calibrate mode is these two and the chart endpoint.
struct CalibrationController: Sendable {
    let configuration: ServeConfiguration
    let settings: LiveSettings
    let frames: ServedFrames
    let work: BlockingWork
    /// Whether a fit is under way: one at a time, as each holds a blocking-work thread for a
    /// second or two.
    private let fitting = Locked(false)

    /// Frames a fit may be asked to average.
    static let frameRange = 1...60
    /// How long a fit waits for each next frame before it gives up, and a profile applied waits
    /// for the first frame read with it before it answers 202: `ServeConfiguration.frameWait`.
    var frameWait: Duration { configuration.frameWait }
    /// A request body larger than this is refused: it names one file.
    static let maximumBody = 4096

    init(configuration: ServeConfiguration, settings: LiveSettings, frames: ServedFrames, work: BlockingWork) {
        self.configuration = configuration
        self.settings = settings
        self.frames = frames
        self.work = work
    }

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.post("calibration") { request, _ in try await calibrate(request) }
        group.refusingMethods("calibration", but: [.post])
        group.put("profile") { request, _ in try await apply(request) }
        group.refusingMethods("profile", but: [.put])
    }

    /// `?frames=N&model=M`: reads the chart in the next N frames (10), fits model M (auto: the least
    /// leave-one-out error), writes the profile into the directory and answers its name, path and
    /// the report `calibrate --format json` prints.
    private func calibrate(_ request: Request) async throws -> Response {
        let query = try QueryString(request.uri.query, allowed: ["frames", "model"])
        let count = try query.integer("frames", in: Self.frameRange) ?? 10
        let model = try Self.model(query.values("model").last)
        guard let directory = configuration.profileDirectory else { throw CalibrationFailure.noDirectory }
        try frames.requireSource()
        let started = fitting.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard started else { throw CalibrationFailure.busy }
        defer { fitting.withLock { $0 = false } }

        // With --white-reference, the profile records how the camera saw that patch too.
        let whitePoint = settings.settings.options.reference?.point
        let read = Locked(ChartRead(reference: configuration.chartReference, whiteReference: whitePoint))
        let frames = self.frames
        var last = -1
        while read.withLock({ $0.frames }) < count {
            guard await frames.frame(after: last, until: .now + frameWait) != nil else {
                try frames.requireSource()
                throw CalibrationFailure.stalled(read: read.withLock { $0.frames }, of: count, within: frameWait)
            }
            // The newest frame, which may be newer than the one waited for: each is read once.
            let previous = last
            last = try await work.run { _ in
                try frames.withNewest { info, rgb in
                    let frame = ConvertedFrame(
                        rgb: RGBFrame(bytes: rgb, width: info.width, height: info.height), colorimetry: info.colorimetry)
                    do {
                        try read.withLock { try $0.add(frame) }
                    } catch let error as ChartReadError {
                        throw CalibrationFailure.chart(error)
                    }
                    return info.number
                } ?? previous
            }
        }
        let source = configuration.source.source
        let fitted = try await work.run { _ in
            let fit: ChartFit
            do {
                fit = try read.withLock { try $0.fit(model: model, controls: CameraControls.integerValues(of: source)) }
            } catch let error as CalibrationError {
                throw CalibrationFailure.fit(error)
            }
            let name = Self.newName(in: directory)
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                try fit.profile.json().withUnsafeBytes { try AtomicWrite.write($0, to: path) }
            } catch let error as FileWriteError {
                throw CalibrationFailure.write(error)
            }
            return JSONText.object([("name", JSONText.string(name)), ("path", JSONText.string(path)), ("report", fit.report.json)])
        }
        return Response(
            status: .created, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: fitted)))
    }

    /// `{"name": "FILE.json"}`: that profile of the directory, from the next frame on, the
    /// target, white reference and the rest as they are configured now. Answers it as the status
    /// shows it, with the settings' new generation, once a frame read with it is published (200,
    /// and that frame's number: every reading from then on is the new profile's), or when none
    /// came within `frameWait` (202: readings will name the generation when they come).
    private func apply(_ request: Request) async throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        let body = try await request.body.collect(upTo: Self.maximumBody)
        guard let directory = configuration.profileDirectory else { throw CalibrationFailure.noDirectory }
        let name: String
        do {
            name = try JSONDecoder().decode(ProfileChoice.self, from: Data(body.readableBytesView)).name
        } catch {
            throw CalibrationFailure.malformedBody
        }
        guard Self.isPlainName(name) else { throw CalibrationFailure.badName(name) }
        let path = (directory as NSString).appendingPathComponent(name)
        let loaded = try await work.run { _ in
            do throws(CalibrationFileError) {
                return try CameraProfile.load(path: path)
            } catch {
                throw CalibrationFailure.unreadable(error)
            }
        }
        // A profile that cannot take the white reference asked for is applied all the same,
        // without it, and the status says why.
        let applied = ServeSettings.LoadedProfile(profile: loaded, path: path)
        let (generation, _) = settings.replace { ($0.applying(applied), ()) }
        let first = await frames.frame(ofGeneration: generation, until: .now + frameWait)
        let warnings = first.map { loaded.mismatches(colorimetry: $0.colorimetry, width: $0.width, height: $0.height) } ?? []
        let answer = AppliedProfile(
            profile: StatusReport.Profile(applied, warnings: warnings), generation: generation, frame: first?.number)
        return try APIJSONEncoder.response(answer, status: first == nil ? .accepted : .ok)
    }

    private static func model(_ text: String?) throws(QueryParameterError) -> CorrectionModel? {
        guard let text, text != "auto" else { return nil }
        guard let model = CorrectionModel(rawValue: text) else {
            let names = ["auto"] + CorrectionModel.allCases.map(\.rawValue)
            throw QueryParameterError(parameter: "model", reason: "model must be one of \(names.joined(separator: ", ")), got \(text)")
        }
        return model
    }

    /// A file name of the directory: letters, digits, `.`, `_` and `-`, ending in `.json`, not
    /// hidden; never a path.
    static func isPlainName(_ name: String) -> Bool {
        name.count <= 255 && name.hasSuffix(".json") && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
            }
    }

    /// The time now as a file name (`2026-11-25T19-40-00Z.json`), with `-2`, `-3`... when a fit
    /// in the same second took it.
    private static func newName(in directory: String) -> String {
        let stem = CameraProfile.now().replacingOccurrences(of: ":", with: "-")
        var (name, next) = (stem + ".json", 2)
        while FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name)) {
            (name, next) = (stem + "-\(next).json", next + 1)
        }
        return name
    }
}

private struct ProfileChoice: Decodable {
    let name: String
}

/// `PUT /api/v1/profile`'s answer: the profile applied, as the status shows it, the settings'
/// generation that applied it (readings made with it say `"profile":{"file":..,"generation":N}`),
/// and the first frame read with it, null when none was within the wait.
struct AppliedProfile: Encodable {
    let profile: StatusReport.Profile
    let generation: Int
    let frame: Int?

    enum CodingKeys: String, CodingKey { case profile, generation, frame }

    /// `frame` as null rather than absent: its place is part of the answer's shape.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(profile, forKey: .profile)
        try container.encode(generation, forKey: .generation)
        try container.encode(frame, forKey: .frame)
    }
}

extension StatusReport.Profile {
    init(_ served: ServeSettings.LoadedProfile, warnings: [String]) {
        let profile = served.profile
        self.init(
            path: served.path, created: profile.created, model: profile.report.model, matrix: profile.colorimetry.matrix,
            range: profile.colorimetry.range, width: profile.width, height: profile.height, warnings: warnings)
    }
}

/// Why a calibration or a profile could not be made or applied, as the API answers it.
enum CalibrationFailure: JSONResponseError {
    /// serve was started without `--profile-dir`: 409.
    case noDirectory
    /// Another fit is under way: 409.
    case busy
    /// The chart is not in a frame, moved, or the frames changed: 409, a conflict with what the
    /// camera sees (the same request succeeds once the chart is in view and still).
    case chart(ChartReadError)
    /// The patches read cannot be fitted (too many left out, a degenerate fit): 409 too.
    case fit(CalibrationError)
    /// No new frame came in time: 503.
    case stalled(read: Int, of: Int, within: Duration)
    /// The profile could not be written into the directory: 500.
    case write(FileWriteError)
    /// The body is not `{"name": "FILE.json"}`: 400.
    case malformedBody
    /// The name is not a plain file name of the directory: 400.
    case badName(String)
    /// The profile is not there (404) or is not a profile (422).
    case unreadable(CalibrationFileError)

    var status: HTTPResponse.Status {
        switch self {
        case .noDirectory, .busy, .chart, .fit: .conflict
        case .stalled: .serviceUnavailable
        case .write: .internalServerError
        case .malformedBody, .badName: .badRequest
        case let .unreadable(error): error.isMissingFile ? .notFound : .unprocessableContent
        }
    }

    var message: String {
        switch self {
        case .noDirectory:
            "this server keeps no profiles: start serve with --profile-dir DIR to calibrate from the page and apply profiles"
        case .busy: "a calibration is under way: wait for its answer"
        case let .chart(error): error.description
        case let .fit(error): error.description
        case let .stalled(read, count, wait):
            "no new frame came within \(wait.inSeconds == wait.inSeconds.rounded() ? "\(Int(wait.inSeconds))" : DecimalText.fixed(wait.inSeconds, 2)) s after \(read) of \(count) frames: is the source still running?"
        case let .write(error): "cannot write the profile: \(error.description)"
        case .malformedBody:
            #"the body must be a JSON object naming a profile of the directory, e.g. {"name": "2026-11-25T19-40-00Z.json"}"#
        case let .badName(name):
            "\(name) is not a profile's file name: give the name of a .json file in the --profile-dir directory, no path"
        case let .unreadable(error): error.description
        }
    }

    var parameterAtFault: String? {
        switch self {
        case .malformedBody, .badName: "name"
        case .unreadable: "name"
        default: nil
        }
    }
}
