import Eyedropper
import EyedropperCalibration
import Hummingbird

/// `chart`: where the ColorChecker is in the newest frame, as a line of `eyedropper chart`; what
/// the page outlines in its calibrate mode.
struct ChartController: Sendable {
    let frames: ServedFrames
    let work: BlockingWork

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("chart") { request, _ in try await chart(request) }
    }

    /// Found or not, 200: not finding a chart is an answer about the frame, not a failed
    /// request. The detection runs on the blocking pool (it takes milliseconds of one core).
    private func chart(_ request: Request) async throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        try frames.requireSource()
        let frames = self.frames
        let body = try await work.run { worker in
            let detector = worker.chartDetector()
            return frames.withNewest { info, rgb in
                do throws(ChartDetectionFailure) {
                    try detector.detect(rgb24: rgb, width: info.width, height: info.height)
                    return ChartJSON.found(frame: info.number, detector.chart)
                } catch {
                    return ChartJSON.notFound(frame: info.number, error)
                }
            }
        }
        guard let body else { throw FrameUnavailable.noFrameYet }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
