import Eyedropper
import EyedropperCalibration
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle
import UnixSignals

/// What a reload (SIGHUP, `systemctl reload`) reads: serve's options as its configuration file
/// says them now. The command line makes one for each reload.
public struct ReloadedOptions: Sendable {
    public var options: ServeSettings.Options
    /// The options that differ from those serve started with but take effect only at a restart
    /// (`listen`, `source`, ...), by their long names.
    public var restartNeeded: [String]

    public init(options: ServeSettings.Options, restartNeeded: [String]) {
        self.options = options
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

extension ServerParts {
    /// Loads what the configuration `read` gives names (`ServeSettings.load`, as at the start)
    /// and puts it in place: a part that fails keeps what was served, is logged and is said in
    /// the status. Open connections and streams, MQTT and OSC go on throughout.
    func reload(_ read: () throws -> ReloadedOptions, logger: Logger) {
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
        let reloaded: ReloadedOptions
        do {
            reloaded = try read()
        } catch {
            errors.append("\(error); nothing was reloaded")
            return
        }
        do {
            // Over the settings in use each part that fails is one of the answer's errors: nothing
            // here throws but what no part could catch.
            let (_, result) = try settings.replace { current in
                let result = try ServeSettings.load(reloaded.options, over: current)
                return (result.settings, result)
            }
            (loaded, errors, restartNeeded) = (result.loaded, result.errors, reloaded.restartNeeded + result.restartNeeded)
        } catch {
            errors.append("\(error); nothing was reloaded")
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
