import Eyedropper
import EyedropperCalibration
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle
import UnixSignals

/// What a reload (SIGHUP, `systemctl reload`) reads again: the files serve was given, as its
/// configuration file says them now. The command line makes one for each reload.
public struct ReloadSettings: Sendable {
    /// `--profile`, `--target`, `--tolerance` and `--white-reference` with its options; nil: serve
    /// without a profile from now on.
    public var calibration: Calibration?
    public var token: Token
    /// `--tls-cert` and `--tls-key`.
    public var tls: ServeConfiguration.TLSFiles?
    /// The options that differ from those serve started with but take effect only at a restart
    /// (`listen`, `source`, ...), by their long names.
    public var restartNeeded: [String]

    public struct Calibration: Sendable {
        public var profilePath: String
        /// As given: `L,a,b` or `#rrggbb`.
        public var target: String?
        public var tolerance: Double
        /// `--white-reference` and its options.
        public var reference: WhiteReferenceSettings?

        public init(profilePath: String, target: String?, tolerance: Double, reference: WhiteReferenceSettings? = nil) {
            self.profilePath = profilePath
            self.target = target
            self.tolerance = tolerance
            self.reference = reference
        }
    }

    /// Where the token comes from now.
    public enum Token: Sendable {
        /// `--token-file`: read it again.
        case file(String)
        /// `EYEDROPPER_TOKEN`: the environment a process started with does not change.
        case environment
        case none
    }

    public init(calibration: Calibration?, token: Token, tls: ServeConfiguration.TLSFiles?, restartNeeded: [String]) {
        self.calibration = calibration
        self.token = token
        self.tls = tls
        self.restartNeeded = restartNeeded
    }
}

/// The last reload, as `/api/v1/status` gives it under `reload` (absent before the first).
struct ReloadReport: Codable, Hashable, Sendable {
    /// When it happened, ISO 8601 UTC to the second.
    let at: String
    /// Reloads since the start.
    let count: Int
    /// What could not be loaded (the old one is kept), each naming the file; `[]` when all was.
    let errors: [String]
    /// Options changed in the configuration that take effect only at a restart.
    let restartNeeded: [String]
}

/// The token every request is checked against: `--token-file`'s, replaced by a reload.
final class ServedToken: Sendable {
    private let token: Locked<BearerToken>

    init(_ token: BearerToken) { self.token = Locked(token) }

    var current: BearerToken { token.withLock { $0 } }

    func replace(with token: BearerToken) { self.token.withLock { $0 = token } }
}

/// The TLS context each new connection is served with: `--tls-cert` and `--tls-key`, replaced by
/// a reload; a connection keeps the one it began with.
final class ServedTLS: Sendable {
    private let context: Locked<NIOSSLContext>

    init(_ context: NIOSSLContext) { self.context = Locked(context) }

    var current: NIOSSLContext { context.withLock { $0 } }

    func replace(with context: NIOSSLContext) { self.context.withLock { $0 = context } }
}

extension ServerParts {
    /// Loads what `settings` (read by `read`) names, each part on its own: a file that fails keeps
    /// what was served, is logged and is said in the status. Open connections and streams, MQTT
    /// and OSC go on throughout.
    func reload(_ read: () throws -> ReloadSettings, logger: Logger) {
        var errors: [String] = [], loaded: [String] = [], restartNeeded: [String] = []
        defer {
            let report = reloads.withLock { last in
                let report = ReloadReport(
                    at: Date.now.formatted(.iso8601), count: (last?.count ?? 0) + 1, errors: errors, restartNeeded: restartNeeded)
                last = report
                return report
            }
            for error in errors { logger.error("reload: \(error)") }
            if !restartNeeded.isEmpty {
                logger.warning("reload: changed, taking effect at the next restart: \(restartNeeded.joined(separator: ", "))")
            }
            let summary = loaded.isEmpty ? "nothing loaded" : loaded.joined(separator: ", ")
            logger.notice("reloaded (\(report.count)): \(summary)\(errors.isEmpty ? "" : "; \(errors.count) failed, kept as they were")")
        }
        let settings: ReloadSettings
        do {
            settings = try read()
        } catch {
            errors.append("\(error); nothing was reloaded")
            return
        }
        restartNeeded = settings.restartNeeded
        if let calibration = settings.calibration {
            do {
                let loadedProfile = try CameraProfile.load(path: calibration.profilePath)
                let target = try calibration.target.map { try ColorTarget(parsing: $0, tolerance: calibration.tolerance) }
                let settings = ServeConfiguration.CalibrationSettings(
                    profile: loadedProfile, path: calibration.profilePath, target: target, reference: calibration.reference)
                profile.replace(with: settings)
                loaded.append("the profile \(calibration.profilePath)" + (calibration.target.map { " with the target \($0)" } ?? ""))
                if case .failure(let error) = settings.whiteReference {
                    errors.append("--white-reference with \(calibration.profilePath): \(error) (served without the reference)")
                }
            } catch {
                errors.append("\(error) (the profile served is kept)")
            }
        } else if profile.settings != nil {
            profile.replace(with: nil)
            loaded.append("no profile")
        }
        switch (token, settings.token) {
        case (let served?, .file(let path)):
            do {
                served.replace(with: try BearerToken(contentsOf: path))
                loaded.append("the token of \(path)")
            } catch {
                errors.append("\(error) (the token asked for is kept)")
            }
        case (_?, .none):
            errors.append("the configuration gives no token now: serving without one takes a restart (the token asked for is kept)")
        case (nil, .file):
            restartNeeded.append("token-file")
        case (_, .environment), (nil, .none):
            break
        }
        switch (tls, settings.tls) {
        case (let served?, let files?):
            do {
                served.replace(with: try files.context())
                loaded.append("the certificate \(files.certificatePath) and key \(files.keyPath)")
            } catch {
                errors.append("\(error) (new connections keep the certificate they had)")
            }
        case (_?, nil), (nil, _?):
            restartNeeded.append("tls-cert")
        case (nil, nil):
            break
        }
    }
}

/// SIGHUP: `ServerParts.reload` with what `read` gives, until the service stops. The handler is
/// installed when this is made, before the server says it is ready: SIGHUP's default action ends
/// the process.
struct ReloadService: Service {
    let signals: UnixSignalsSequence
    let reload: @Sendable () -> Void

    init(reload: @escaping @Sendable () -> Void) async {
        signals = await UnixSignalsSequence(trapping: .sighup)
        self.reload = reload
    }

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() { reload() }
    }
}
