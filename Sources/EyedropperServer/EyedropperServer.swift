import Hummingbird
import Logging
import ServiceLifecycle

/// `eyedropper serve`: one capture, converted and sampled once a frame, answering any number of
/// HTTP clients from the newest frame.
public enum EyedropperServer {
    /// Starts the capture and serves until SIGINT or SIGTERM; then open streams end (a client that
    /// has stopped reading is cut off after 2 seconds), the camera is released and this returns.
    /// `logger` hears what happens, the address served on first (at `notice`).
    public static func run(_ configuration: ServeConfiguration, logger: Logger) async throws {
        let frames = LatestFrame()
        let statistics = CaptureStatistics()
        let capture = CaptureLoop(configuration: configuration, frames: frames, statistics: statistics, logger: logger)
        let endpoints = Endpoints(
            configuration: configuration, frames: frames, statistics: statistics,
            jpeg: try JPEGCache(frames: frames, quality: configuration.jpegQuality),
            streams: StreamLimit(limit: configuration.maxStreams))
        let router = Router()
        endpoints.addRoutes(to: router)
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .warning)  // Hummingbird's per-request lines are not for stderr
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port.map(String.init) ?? "?"
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                logger.notice("serving \(configuration.source.source) on http://\(host):\(port)/")
            },
            logger: serverLogger)
        capture.start()
        defer {
            frames.close()
            capture.stop()
        }
        // Services stop in reverse order: the capture first, which ends every open stream, so the
        // server then finds its connections finishing instead of waiting on endless responses.
        // A stream whose client stopped reading is stuck in a write no frame can end: after 2 s
        // the group cancels what is left, which ends that write.
        var group = ServiceGroupConfiguration(
            services: [app, CaptureShutdown(frames: frames, capture: capture)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: serverLogger)
        group.maximumGracefulShutdownDuration = .seconds(2)
        try await ServiceGroup(configuration: group).run()
    }
}

/// Waits for the shutdown signal, then ends the streams and stops (and releases) the capture.
private struct CaptureShutdown: Service {
    let frames: LatestFrame
    let capture: CaptureLoop

    func run() async throws {
        try? await gracefulShutdown()
        frames.close()
        capture.stop()
    }
}
