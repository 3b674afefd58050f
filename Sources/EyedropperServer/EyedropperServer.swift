import EyedropperOutputs
import Hummingbird
import Logging
import ServiceLifecycle

/// `eyedropper serve`: one capture, converted and sampled once a frame, answering any number of
/// HTTP clients from the newest frame.
public enum EyedropperServer {
    /// The release: what `eyedropper --version` prints, `eyedropper_build_info` says is running
    /// and `Scripts/package` names the Debian package after (it asks the binary). The one place
    /// it is written.
    public static let version = "0.5.0"

    /// Starts the capture and serves until SIGINT or SIGTERM; then open streams end (a client that
    /// has stopped reading is cut off after 2 seconds), the camera is released and this returns.
    /// `logger` hears what happens, the address served on first (at `notice`).
    /// `outputs` (`--mqtt`, `--osc`), connected already, get every frame's samples and are closed
    /// when the capture stops. With `reload`, SIGHUP reloads what it reads (`ServerParts.reload`);
    /// without, SIGHUP is left as it is. Started
    /// by systemd (`Type=notify`), it says when it is ready, how it is doing (`STATUS=`), that its
    /// capture is alive (`WATCHDOG=1`), and when it reloads and stops.
    public static func run(
        _ configuration: ServeConfiguration, outputs: SampleOutputs? = nil,
        reload: (@Sendable () throws -> ReloadedOptions)? = nil, logger: Logger
    ) async throws {
        let notifier = SystemdNotifier()
        let parts = try ServerParts(configuration, outputs: outputs, notifier: notifier, logger: logger)
        let app = buildApplication(configuration, parts: parts, logger: logger)
        var services: [any Service] = [app, EndStreams(frames: parts.frames, notifier: notifier, status: parts.serviceStatus)]
        if let reload {
            services.append(
                await ReloadService {
                    notifier.send("RELOADING=1\nMONOTONIC_USEC=\(SystemdNotifier.monotonicNanoseconds / 1000)")
                    parts.reload(reload, logger: logger)
                    notifier.send("READY=1\nSTATUS=\(parts.serviceStatus())")
                })
        }
        // Services stop in reverse order: the streams end first, so the server then finds its
        // connections finishing instead of waiting on endless responses; the application's own
        // capture service stops the capture after the server. A stream whose client stopped
        // reading is stuck in a write no frame can end: after 2 s the group cancels what is left,
        // which ends that write.
        var group = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint],
            logger: serverLogger(logger))
        group.maximumGracefulShutdownDuration = .seconds(2)
        try await ServiceGroup(configuration: group).run()
    }
}

/// `logger` for Hummingbird and the service group: their per-request lines are not for stderr.
func serverLogger(_ logger: Logger) -> Logger {
    var serverLogger = logger
    serverLogger.logLevel = max(logger.logLevel, .warning)
    return serverLogger
}

/// Until the shutdown signal, tells systemd how the service is doing every 10 seconds (when it
/// listens); then says it is stopping and ends every open stream.
private struct EndStreams: Service {
    let frames: ServedFrames
    let notifier: SystemdNotifier
    let status: @Sendable () -> String

    func run() async throws {
        if notifier.isActive {
            while (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: .seconds(10)) })) != nil {
                notifier.send("STATUS=\(status())")
            }
        } else {
            try? await gracefulShutdown()
        }
        notifier.send("STOPPING=1")
        frames.close()
    }
}
