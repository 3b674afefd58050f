import Eyedropper
import EyedropperCalibration
import EyedropperOutputs
import EyedropperPipeline
import HTTPTypes
import Hummingbird

/// `sample` (the colours at any points of the newest frame) and `samples` (an event per frame with
/// the colours at the configured points).
struct SampleController: Sendable {
    let configuration: ServeConfiguration
    let frames: ServedFrames
    let history: ReadingHistory
    let streams: StreamLimit

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("sample") { request, _ in try sample(request) }
        group.getOnly("samples") { request, _ in try events(request) }
    }

    /// `?at=X,Y&...&radius=R`: the colours at those points (default: the configured ones) of the
    /// newest frame, as one line of `eyedropper sample` (with `--profile`, calibrated too), read
    /// with the settings that frame was read with.
    private func sample(_ request: Request) throws -> Response {
        let query = try QueryString(request.uri.query, allowed: ["at", "radius"])
        let points = try query.points()
        let radius = try query.integer("radius", in: 0...SamplingError.maximumRadius) ?? configuration.radius
        try frames.requireSource()
        let body = try frames.withNewest { info, rgb in
            // The configured points at the configured radius: the line the capture made already.
            if points.isEmpty, radius == configuration.radius { return info.reading?.json ?? "" }
            // Else the request's, read from the newest frame's RGB as the capture reads every frame,
            // corrected by the capture's reading of the white reference in this frame (the clock
            // does not matter: the JSON line carries no wall-clock time).
            var pipeline = FramePipeline(
                configuration, settings: info.settings, generation: info.generation, points: points.isEmpty ? nil : points,
                radius: radius, readsReference: false, driverClock: false)
            let frame = ConvertedFrame(
                rgb: RGBFrame(bytes: rgb, width: info.width, height: info.height), colorimetry: info.colorimetry)
            return try pipeline.read(
                frame, number: info.number, timestamp: info.timestamp, referenceReading: info.reading?.reading.reference)?.json ?? ""
        }
        guard let body else { throw FrameUnavailable.noFrameYet }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Server-Sent Events: one event per frame with the colours at the configured points, its
    /// `id:` the frame's number. From the newest frame on; with `Last-Event-ID` (a client
    /// reconnecting), from the frame after that one, out of the history of the last minute. A
    /// client slower than the capture gets every frame all the same, while it is less than the
    /// history behind.
    private func events(_ request: Request) throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        let newest = history.newestFrame
        let asked = try Self.lastEventID(request)
        // A frame this server has not read yet (another server's id, or one from before a restart)
        // starts from the newest, as no id does.
        let resumeAfter: Int? = if let asked, let newest, asked <= newest { asked } else { nil }
        return try streams.response(contentType: "text/event-stream") { writer in
            var last = resumeAfter ?? newest.map { $0 - 1 } ?? -1
            var text = ""
            while true {
                let (missed, readings) = history.readings(after: last)
                if readings.isEmpty {
                    guard let info = await frames.frame(after: last) else { return }
                    // A frame without a reading (none is ever published so): step past it.
                    if info.reading == nil { last = info.number }
                    continue
                }
                text.removeAll(keepingCapacity: true)
                if missed > 0 { text += ": \(missed) events before this one were older than the history keeps\n\n" }
                for reading in readings { text += "id: \(reading.frame)\ndata: \(reading.json)\n\n" }
                try await writer.write(ByteBuffer(string: text))
                last = readings[readings.count - 1].frame
            }
        }
    }
}

extension SampleController {
    /// `Last-Event-ID`: the frame number of the last event a client had (-1: none yet); nil
    /// without the header. Anything else is 400: no event of this stream had that id.
    static func lastEventID(_ request: Request) throws(QueryParameterError) -> Int? {
        guard let text = request.headers[.lastEventID] else { return nil }
        // The document's pattern, `-1` or 1 to 18 digits, with spaces around: no sign, no other
        // digits than ASCII's (Int would take "+5").
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard trimmed == "-1" || (digits && (1...18).contains(trimmed.utf8.count)), let id = Int(trimmed) else {
            throw QueryParameterError(
                parameter: "Last-Event-ID",
                reason:
                    "Last-Event-ID must be the id of an event of this stream, a frame number (or -1 for none yet), got \(text.debugDescription)"
            )
        }
        return id
    }
}

extension HTTPTypes.HTTPField.Name {
    /// Sent by an event-stream client that reconnects: the `id:` of the last event it had.
    static let lastEventID = Self("Last-Event-ID")!
}

extension LatestFrame {
    /// Throws `FrameUnavailable` while the source is failing.
    func requireSource() throws(FrameUnavailable) {
        if let failure { throw FrameUnavailable.sourceFailed(failure) }
    }
}
