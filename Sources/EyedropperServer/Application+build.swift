import Eyedropper
import EyedropperCapture
import EyedropperJPEG
import EyedropperOutputs
import Hummingbird
import Logging
import NIOSSL
import ServiceLifecycle

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
    /// Whoever records the camera's frames: the capture copies them only then.
    let recordings = RecordingTap()
    /// The profile every frame is calibrated with: `--profile`, or one applied since.
    let profile: ServedProfile
    let metrics: ServerMetrics
    let statistics: CaptureStatistics
    let capture: CaptureLoop
    /// The one executor of blocking work: JPEG compression, chart detection and camera-control
    /// requests.
    let work = BlockingWork()
    let jpeg: JPEGCache
    let streams: StreamLimit
    let connections = ConnectionCounters()
    /// `--token-file` or `EYEDROPPER_TOKEN`, replaced by a reload; nil asks for none.
    let token: ServedToken?
    /// `--tls-cert` and `--tls-key`, read and checked, replaced by a reload: nil serves plain HTTP.
    let tls: ServedTLS?
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
    /// and the `TLSFileError` of a certificate or key that cannot be used, before anything starts.
    init(
        _ configuration: ServeConfiguration, outputs: SampleOutputs? = nil, notifier: SystemdNotifier = SystemdNotifier(environment: [:]),
        logger: Logger
    ) throws {
        tls = try configuration.tls.map { ServedTLS(try $0.context()) }
        token = configuration.token.map(ServedToken.init)
        self.notifier = notifier
        profile = ServedProfile(configuration.calibration)
        controls = try configuration.source.makeControls()
        self.outputs = outputs
        metrics = ServerMetrics(
            mqtt: outputs?.mqtt != nil, osc: outputs?.osc != nil, reference: configuration.calibration?.reference != nil)
        statistics = CaptureStatistics(conversionHistogram: metrics.conversion)
        streams = StreamLimit(limit: configuration.maxStreams)
        let (frames, statistics, streams) = (frames, statistics, streams)
        let describe = { @Sendable in
            Self.serviceStatus(source: configuration.source.source.description, frames: frames, statistics: statistics, streams: streams)
        }
        serviceStatus = describe
        capture = CaptureLoop(
            configuration: configuration, frames: frames, jpegDemand: jpegDemand, statistics: statistics, controls: controls,
            profile: profile, outputs: outputs, recordings: recordings, notifier: notifier,
            outcome: { [notifier] in notifier.reached(listening: false, status: describe()) }, logger: logger)
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

/// Every route, behind the middleware: counted, errors as JSON, and with a token, refused without
/// it. `buildApplication` serves them, and the tests hold them against the OpenAPI document.
func buildRouter(_ configuration: ServeConfiguration, parts: ServerParts) -> Router<ServeRequestContext> {
    let router = Router(context: ServeRequestContext.self)
    router.add(middleware: RequestMetricsMiddleware(metrics: parts.metrics))
    router.add(middleware: JSONErrorMiddleware())
    if let token = parts.token { router.add(middleware: TokenMiddleware(token: token)) }
    PageController().addRoutes(to: router.group())
    HealthController().addRoutes(to: router.group())
    let api = router.group("api/v1")
    SampleController(configuration: configuration, profile: parts.profile, frames: parts.frames, streams: parts.streams)
        .addRoutes(to: api)
    FrameController(frames: parts.frames, jpeg: parts.jpeg, streams: parts.streams).addRoutes(to: api)
    RecordingController(tap: parts.recordings, streams: parts.streams).addRoutes(to: api)
    ChartController(frames: parts.frames, work: parts.work).addRoutes(to: api)
    CalibrationController(configuration: configuration, profile: parts.profile, frames: parts.frames, work: parts.work)
        .addRoutes(to: api)
    ControlsController(source: configuration.source.source, controls: parts.controls, work: parts.work).addRoutes(to: api)
    StatusController(
        configuration: configuration, profile: parts.profile, frames: parts.frames, statistics: parts.statistics, jpeg: parts.jpeg,
        streams: parts.streams, connections: parts.connections, metrics: parts.metrics, controls: parts.controls,
        outputs: parts.outputs, reloads: parts.reloads
    ).addRoutes(to: router.group())
    OpenAPIController(requiresToken: configuration.token != nil).addRoutes(to: api)
    return router
}

func buildApplication(
    _ configuration: ServeConfiguration, parts: ServerParts, logger: Logger
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(configuration, parts: parts),
        server: .eyedropper(timeouts: configuration.timeouts, tls: parts.tls, counters: parts.connections),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: [CaptureService(parts: parts)],
        onServerRunning: { channel in
            let port = channel.localAddress?.port.map(String.init) ?? "?"
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            let scheme = parts.tls == nil ? "http" : "https"
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
