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
    /// when the capture stops.
    public static func run(_ configuration: ServeConfiguration, outputs: SampleOutputs? = nil, logger: Logger) async throws {
        let parts = try ServerParts(configuration, outputs: outputs, logger: logger)
        let app = buildApplication(configuration, parts: parts, logger: logger)
        // Services stop in reverse order: the streams end first, so the server then finds its
        // connections finishing instead of waiting on endless responses; the application's own
        // capture service stops the capture after the server. A stream whose client stopped
        // reading is stuck in a write no frame can end: after 2 s the group cancels what is left,
        // which ends that write.
        var group = ServiceGroupConfiguration(
            services: [app, EndStreams(frames: parts.frames)], gracefulShutdownSignals: [.sigterm, .sigint],
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

/// Waits for the shutdown signal, then ends every open stream.
private struct EndStreams: Service {
    let frames: ServedFrames

    func run() async throws {
        try? await gracefulShutdown()
        frames.close()
    }
}
