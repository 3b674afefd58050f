import Eyedropper
import EyedropperCapture
import EyedropperJPEG
import EyedropperOutputs
import Hummingbird
import Logging
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The `eyedropper serve` application for `configuration`: the routes, and the capture as a service
/// that runs while the application does. `EyedropperServer.run` and the tests both call this.
/// `logger` hears what happens, the address served on first (at `notice`).
public func buildApplication(
    _ configuration: ServeConfiguration, logger: Logger = Logger(label: "eyedropper")
) throws -> some ApplicationProtocol {
    try buildApplication(configuration, parts: ServerParts(configuration, logger: logger), logger: logger)
}

/// Everything one server holds, shared by its routes and its capture.
struct ServerParts: Sendable {
    let frames = ServedFrames(payload: { JPEGPlaneBuffer() })
    /// Whether anyone watches as JPEG: the capture remaps each frame's planes for the encoders only
    /// then.
    let jpegDemand = JPEGDemand()
    /// The settings in use (profile, target, white reference, palette, token, TLS) and their
    /// generation: the start's, replaced by a reload or the page.
    let settings: LiveSettings
    /// The readings of the last minute, for event-stream clients that reconnect or fall behind.
    let history = ReadingHistory()
    let metrics: ServerMetrics
    let statistics: CaptureStatistics
    let capture: CaptureLoop
    /// The one executor of blocking work: JPEG compression, chart detection and camera-control
    /// requests.
    let work = BlockingWork()
    let jpeg: JPEGCache
    let streams: StreamLimit
    let connections = ConnectionCounters()
    /// Whether every request needs the token (one was given at the start: a reload may change
    /// it, not take it away).
    let requiresToken: Bool
    /// Whether this is HTTPS (a certificate was given at the start: a reload may change it).
    let servesTLS: Bool
    /// systemd's notifications (ready, status, watchdog); silent when not started by systemd.
    let notifier: SystemdNotifier
    /// The last reload, for the status.
    let reloads = Locked<ReloadReport?>(nil)
    /// systemd's `STATUS=` line: the stream and its rate, or why there are no frames.
    let serviceStatus: @Sendable () -> String
    /// A camera's controls, shared by the capture (which applies them at every open) and the
    /// controls endpoints; nil for the test pattern and files.
    let controls: CameraControls?
    /// `--mqtt`, `--osc`: where each frame's samples go too, connected already; closed when the
    /// capture stops.
    let outputs: SampleOutputs?

    /// Throws the `ControlError` of controls or `--lock` asked of a source that is not a camera,
    /// before anything starts.
    init(
        _ configuration: ServeConfiguration, outputs: SampleOutputs? = nil, notifier: SystemdNotifier = SystemdNotifier(environment: [:]),
        logger: Logger
    ) throws {
        settings = LiveSettings(configuration.settings)
        requiresToken = configuration.settings.token != nil
        servesTLS = configuration.settings.tls != nil
        self.notifier = notifier
        controls = try configuration.source.makeControls()
        self.outputs = outputs
        metrics = ServerMetrics(mqtt: outputs?.mqtt != nil, osc: outputs?.osc != nil)
        statistics = CaptureStatistics(conversionHistogram: metrics.conversion)
        streams = StreamLimit(limit: configuration.maxStreams)
        let (frames, statistics, streams) = (frames, statistics, streams)
        let describe = { @Sendable in
            Self.serviceStatus(source: configuration.source.source.description, frames: frames, statistics: statistics, streams: streams)
        }
        serviceStatus = describe
        capture = CaptureLoop(
            configuration: configuration, frames: frames, jpegDemand: jpegDemand, statistics: statistics, controls: controls,
            settings: settings, history: history, outputs: outputs, notifier: notifier,
            outcome: { [notifier] in notifier.reached(listening: false, status: describe()) }, logger: logger)
        // Home Assistant's sensors follow the settings: a profile, target, reference or palette
        // applied or taken away since is announced again.
        if let mqtt = outputs?.mqtt, mqtt.settings.discovery != nil {
            let points = configuration.points
            mqtt.announce(HomeAssistantDiscovery(points: points, settings: configuration.settings))
            settings.observe { mqtt.announce(HomeAssistantDiscovery(points: points, settings: $0)) }
        }
        do {
            jpeg = try JPEGCache(frames: frames, demand: jpegDemand, quality: configuration.jpegQuality, pool: work)
        } catch {
            work.stop()
            throw error
        }
    }

    private static func serviceStatus(source: String, frames: ServedFrames, statistics: CaptureStatistics, streams: StreamLimit) -> String {
        if let failure = frames.failure { return "\(source): no frames: \(failure)" }
        let capture = statistics.snapshot()
        let rate = capture.frameRate > 0 ? ", \((capture.frameRate * 10).rounded() / 10) fps" : ""
        return "\(source): \(capture.stream ?? "starting")\(rate), \(streams.count) stream client\(streams.count == 1 ? "" : "s")"
    }
}

extension HomeAssistantDiscovery {
    /// serve's sensors: one per point, with what `settings` add to each reading.
    public init(points: [SamplePoint], settings: ServeSettings) {
        self.init(
            points: points, calibrated: settings.profile != nil, target: settings.target != nil,
            reference: (try? settings.whiteReference?.get()) != nil, named: settings.palette != nil)
    }
}

/// Every route, behind the middleware: counted, errors as JSON, and with a token, refused without
/// it. `buildApplication` serves them, and the tests hold them against the OpenAPI document.
func buildRouter(_ configuration: ServeConfiguration, parts: ServerParts) -> Router<ServeRequestContext> {
    let router = Router(context: ServeRequestContext.self)
    router.add(middleware: RequestMetricsMiddleware(metrics: parts.metrics))
    router.add(middleware: JSONErrorMiddleware())
    if parts.requiresToken { router.add(middleware: TokenMiddleware(settings: parts.settings)) }
    PageController().addRoutes(to: router.group())
    HealthController().addRoutes(to: router.group())
    let api = router.group("api/v1")
    SampleController(configuration: configuration, frames: parts.frames, history: parts.history, streams: parts.streams)
        .addRoutes(to: api)
    FrameController(frames: parts.frames, jpeg: parts.jpeg, streams: parts.streams).addRoutes(to: api)
    ChartController(frames: parts.frames, work: parts.work).addRoutes(to: api)
    CalibrationController(configuration: configuration, settings: parts.settings, frames: parts.frames, work: parts.work)
        .addRoutes(to: api)
    ControlsController(source: configuration.source.source, controls: parts.controls, work: parts.work).addRoutes(to: api)
    StatusController(
        configuration: configuration, settings: parts.settings, frames: parts.frames, statistics: parts.statistics, jpeg: parts.jpeg,
        streams: parts.streams, connections: parts.connections, metrics: parts.metrics, controls: parts.controls,
        outputs: parts.outputs, reloads: parts.reloads
    ).addRoutes(to: router.group())
    OpenAPIController(requiresToken: parts.requiresToken).addRoutes(to: api)
    return router
}

/// The application of `parts`; without `capturing`, frames are handed in (`HandedFrames`).
func buildApplication(
    _ configuration: ServeConfiguration, parts: ServerParts, logger: Logger, capturing: Bool = true
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(configuration, parts: parts),
        server: .eyedropper(timeouts: configuration.timeouts, tls: parts.servesTLS ? parts.settings : nil, counters: parts.connections),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: capturing ? [CaptureService(parts: parts)] : [],
        onServerRunning: { channel in
            let port = channel.localAddress?.port.map(String.init) ?? "?"
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            let scheme = parts.servesTLS ? "https" : "http"
            logger.notice("serving \(configuration.source.source) on \(scheme)://\(host):\(port)/")
            parts.notifier.reached(listening: true, status: parts.serviceStatus())
        },
        logger: serverLogger(logger))
}

/// Runs the capture while the application runs; at shutdown (or cancellation) ends the streams,
/// stops (and releases) the capture and the JPEG threads.
struct CaptureService: Service {
    let parts: ServerParts

    func run() async throws {
        parts.capture.start()
        try? await gracefulShutdown()
        parts.frames.close()
        parts.capture.stop()
        parts.outputs?.close()
        parts.work.stop()
    }
}

/// A server whose frames are handed in rather than captured: its routes as `buildApplication`
/// serves them, with no capture running, so that what a test asks of one frame is answered from
/// that frame, whatever the machine's load. For the tests' small routers.
package final class HandedFrames: @unchecked Sendable {
    let parts: ServerParts
    /// The capture's own reading of each frame; one frame at a time.
    private var publisher: FramePublisher
    private let lock = Mutex(())

    /// The application for `configuration` without its capture, and what hands it frames.
    package static func application(
        _ configuration: ServeConfiguration, logger: Logger = Logger(label: "eyedropper")
    ) throws -> (application: some ApplicationProtocol, frames: HandedFrames) {
        let parts = try ServerParts(configuration, logger: logger)
        let frames = HandedFrames(parts: parts, configuration: configuration, logger: logger)
        return (buildApplication(configuration, parts: parts, logger: logger, capturing: false), frames)
    }

    private init(parts: ServerParts, configuration: ServeConfiguration, logger: Logger) {
        self.parts = parts
        publisher = FramePublisher(
            configuration: configuration, frames: parts.frames, jpegDemand: parts.jpegDemand, statistics: parts.statistics,
            settings: parts.settings, history: parts.history, outputs: parts.outputs, logger: logger)
    }

    deinit {
        parts.frames.close()
        parts.work.stop()
    }

    /// Reads `frame` as the capture reads each, with the settings in use, and publishes it;
    /// `stream` is what the status calls its format.
    package func publish(_ frame: borrowing PlanarFrame, timestamp: Double = 0, stream: String? = nil) {
        lock.withLock { _ in
            if let stream { parts.statistics.setStream(stream) }
            publisher.publish(frame, timestamp: timestamp)
        }
    }

    /// Frames compressed to JPEG so far (each once, on demand).
    package var framesEncoded: Int { parts.jpeg.framesEncoded }

    /// What a reload (SIGHUP) does with `options`.
    package func reload(_ options: ReloadedOptions) {
        parts.reload({ options }, logger: Logger(label: "eyedropper"))
    }

    /// The settings' generation now.
    package var generation: Int { parts.settings.generation }

    /// Open MJPEG and event-stream responses.
    package var streamClients: Int { parts.streams.count }

    /// No more frames: every stream ends once it has sent what it has, as at a shutdown.
    package func close() { parts.frames.close() }

    /// Ends every open stream once it has sent what it has (as `close`), waits until they are
    /// gone, and takes frames and streams again.
    package func endStreams() async {
        parts.frames.close()
        while parts.streams.count > 0 { try? await Task.sleep(for: .milliseconds(2)) }
        parts.frames.reopen()
    }
}
