import Eyedropper
import EyedropperCalibration
import EyedropperOutputs
import EyedropperPipeline
import Hummingbird

/// `sample` (the colours at any points of the newest frame) and `samples` (an event per frame with
/// the colours at the configured points).
struct SampleController: Sendable {
    let configuration: ServeConfiguration
    let profile: ServedProfile
    let frames: ServedFrames
    let streams: StreamLimit

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("sample") { request, _ in try sample(request) }
        group.getOnly("samples") { request, _ in try events(request) }
    }

    /// `?at=X,Y&...&radius=R`: the colours at those points (default: the configured ones) of the
    /// newest frame, as one line of `eyedropper sample` (with `--profile`, calibrated too).
    private func sample(_ request: Request) throws -> Response {
        let query = try QueryString(request.uri.query, allowed: ["at", "radius"])
        let points = try query.points()
        let radius = try query.integer("radius", in: 0...SamplingError.maximumRadius) ?? configuration.radius
        try frames.requireSource()
        let body = try frames.withNewest { info, rgb in
            // The configured points at the configured radius: the line the capture made already.
            if points.isEmpty, radius == configuration.radius { return info.samplesJSON }
            // Else the request's, read from the newest frame's RGB as the capture reads every frame
            // (the clock does not matter: the JSON line carries no wall-clock time).
            var pipeline = FramePipeline(
                configuration, calibration: profile.settings, points: points.isEmpty ? nil : points, radius: radius,
                driverClock: false)
            let frame = ConvertedFrame(
                rgb: RGBFrame(bytes: rgb, width: info.width, height: info.height), colorimetry: info.colorimetry)
            return try pipeline.read(frame, number: info.number, timestamp: info.timestamp)?.json ?? ""
        }
        guard let body else { throw FrameUnavailable.noFrameYet }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Server-Sent Events: one `data:` line per frame with the colours at the configured points.
    private func events(_ request: Request) throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        return try streams.response(contentType: "text/event-stream") { writer in
            var last = -1
            while let info = await frames.frame(after: last) {
                last = info.number
                try await writer.write(ByteBuffer(string: "id: \(info.number)\ndata: \(info.samplesJSON)\n\n"))
            }
        }
    }
}

extension LatestFrame {
    /// Throws `FrameUnavailable` while the source is failing.
    func requireSource() throws(FrameUnavailable) {
        if let failure { throw FrameUnavailable.sourceFailed(failure) }
    }
}
