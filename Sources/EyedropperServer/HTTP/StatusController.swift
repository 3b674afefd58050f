import Eyedropper
import EyedropperCapture
import EyedropperOutputs
import Hummingbird

/// The capture's figures: `/api/v1/status` as JSON and `/metrics` in Prometheus' text format.
struct StatusController: Sendable {
    let configuration: ServeConfiguration
    let settings: LiveSettings
    let frames: ServedFrames
    let statistics: CaptureStatistics
    let jpeg: JPEGCache
    let streams: StreamLimit
    let connections: ConnectionCounters
    let metrics: ServerMetrics
    let controls: CameraControls?
    let outputs: SampleOutputs?
    let reloads: Locked<ReloadReport?>

    /// `group` is the root: the two live under different prefixes.
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("api/v1/status") { request, _ in try status(request) }
        group.getOnly("metrics") { request, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition(try status(request)))))
        }
    }

    private func status(_ request: Request) throws -> StatusReport {
        _ = try QueryString(request.uri.query, allowed: [])
        let (generation, settings) = settings.current
        return StatusReport(
            source: configuration.source.source.description, failure: frames.failure, capture: statistics.snapshot(),
            framesEncoded: jpeg.framesEncoded, streamClients: streams.count,
            stalledStreamsClosed: connections.stalledStreamsClosed, headerTimeouts: connections.headerTimeouts,
            points: configuration.points,
            controls: controls?.settings ?? [], controlWarnings: controls?.warnings ?? [], settings: settings,
            generation: generation, last: frames.newest, outputs: outputs, reload: reloads.withLock { $0 })
    }
}
