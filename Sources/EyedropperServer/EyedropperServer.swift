import Hummingbird
import Logging
import ServiceLifecycle

/// `eyedropper serve`: one capture, converted and sampled once a frame, answering any number of
/// HTTP clients from the newest frame.
public enum EyedropperServer {
    /// Starts the capture and serves until SIGINT or SIGTERM; then open streams end (a client that
    /// has stopped reading is cut off after 2 seconds), the camera is released and this returns. `log` gets progress lines, including the address served on.
    public static func run(_ configuration: ServeConfiguration, log: @escaping @Sendable (String) -> Void) async throws {
        let frames = LatestFrame()
        let statistics = CaptureStatistics()
        let capture = CaptureLoop(configuration: configuration, frames: frames, statistics: statistics, log: log)
        let encoders = JPEGEncoderPool()
        defer { encoders.stop() }
        let endpoints = Endpoints(
            configuration: configuration, frames: frames, statistics: statistics,
            jpeg: try JPEGCache(frames: frames, quality: configuration.jpegQuality, pool: encoders),
            streams: StreamLimit(limit: configuration.maxStreams))
        let router = Router()
        endpoints.addRoutes(to: router)
        var logger = Logger(label: "eyedropper")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port.map(String.init) ?? "?"
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                log("eyedropper: serving \(configuration.source) on http://\(host):\(port)/")
            },
            logger: logger)
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
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
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
