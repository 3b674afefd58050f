import Eyedropper
import Foundation
import Hummingbird

/// The HTTP API over one capture: every handler reads the newest published frame and none waits
/// for the capture thread, nor the capture thread for it.
struct Endpoints: Sendable {
    let configuration: ServeConfiguration
    let frames: LatestFrame
    let statistics: CaptureStatistics
    let jpeg: JPEGCache
    let streams: StreamLimit

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: Page.html)))
        }
        router.get("/api/v1/sample") { request, _ in answering { try sample(request) } }
        router.get("/api/v1/frame.jpg") { request, _ in await answering { try await frameJPEG(request) } }
        router.get("/api/v1/stream.mjpg") { request, _ in answering { try mjpegStream(request) } }
        router.get("/api/v1/samples") { request, _ in answering { try eventStream(request) } }
        router.get("/api/v1/status") { request, _ in answering { try status(request).json(status: .ok) } }
        router.get("/metrics") { request, _ in
            answering {
                Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                         body: ResponseBody(byteBuffer: ByteBuffer(string: try status(request).prometheus)))
            }
        }
    }

    /// `?at=X,Y&...&radius=R`: the colours at those points (default: the configured ones) of the
    /// newest frame, as one line of `eyedropper sample`.
    private func sample(_ request: Request) throws -> Response {
        let query = try Query(request.uri.query, allowed: ["at", "radius"])
        let points = try query.points()
        let radius = try query.integer("radius", in: 0...SamplingError.maximumRadius) ?? configuration.radius
        try requireSource()
        var samples: [ColorSample] = []
        let body = frames.withNewest { info, rgb in
            RGBImage(bytes: rgb, width: info.width, height: info.height)
                .sample(at: points.isEmpty ? configuration.points : points, radius: radius, into: &samples)
            return SampleJSON.object(frame: info.number, timestamp: info.timestamp, colorimetry: info.colorimetry, samples: samples)
        }
        guard let body else { throw FrameUnavailable.noFrameYet }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// `?quality=Q`: the newest frame as JPEG.
    private func frameJPEG(_ request: Request) async throws -> Response {
        let quality = try Query(request.uri.query, allowed: ["quality"]).integer("quality", in: 1...100)
        try requireSource()
        let frame = if let quality { try await jpeg.newest(quality: quality) } else { try await jpeg.newest() }
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: frame.jpeg))
    }

    /// multipart/x-mixed-replace: each part the newest frame when this client is ready for one.
    private func mjpegStream(_ request: Request) throws -> Response {
        _ = try Query(request.uri.query, allowed: [])
        return try streaming(contentType: "multipart/x-mixed-replace; boundary=\(Self.boundary)") { writer in
            var last = -1
            while await frames.frame(after: last) != nil {
                guard let frame = try? await jpeg.newest() else { continue }
                last = frame.number
                var part = ByteBuffer(string: "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(frame.jpeg.readableBytes)\r\n\r\n")
                part.writeImmutableBuffer(frame.jpeg)
                part.writeString("\r\n")
                try await writer.write(part)
            }
        }
    }

    static let boundary = "eyedropperframe"

    /// Server-Sent Events: one `data:` line per frame with the colours at the configured points.
    private func eventStream(_ request: Request) throws -> Response {
        _ = try Query(request.uri.query, allowed: [])
        return try streaming(contentType: "text/event-stream") { writer in
            var last = -1
            while let info = await frames.frame(after: last) {
                last = info.number
                try await writer.write(ByteBuffer(string: "id: \(info.number)\ndata: \(info.samplesJSON)\n\n"))
            }
        }
    }

    /// A response whose body `write` produces until the client leaves or the server stops; 503
    /// when `maxStreams` are already open.
    private func streaming(
        contentType: String, _ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void
    ) throws -> Response {
        guard let place = streams.open() else { throw TooManyStreams(limit: streams.limit) }
        return Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody { writer in
                defer { withExtendedLifetime(place) {} }
                try await write(&writer)
                try await writer.finish(nil)
            })
    }

    private func status(_ request: Request) throws -> StatusReport {
        _ = try Query(request.uri.query, allowed: [])
        return StatusReport(
            source: configuration.source.description, failure: frames.failure, capture: statistics.snapshot(),
            framesEncoded: jpeg.framesEncoded, streamClients: streams.count)
    }

    private func requireSource() throws {
        if let failure = frames.failure { throw FrameUnavailable.sourceFailed(failure) }
    }
}

private struct TooManyStreams: Error {
    let limit: Int
}

/// Counts open stream responses against a limit.
final class StreamLimit: Sendable {
    let limit: Int
    private let clients = Locked(0)

    init(limit: Int) { self.limit = limit }

    var count: Int { clients.withLock { $0 } }

    /// Takes a place, held until the place is released; nil when all `limit` are taken.
    func open() -> Place? {
        let taken = clients.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        return taken ? Place(self) : nil
    }

    /// One open stream. Its place frees when the response that holds it is gone, whether its body
    /// ran to the end, failed, or never started (the client left before the head was written).
    final class Place: Sendable {
        private let limit: StreamLimit
        fileprivate init(_ limit: StreamLimit) { self.limit = limit }
        deinit { limit.clients.withLock { $0 -= 1 } }
    }
}

/// What a handler answers, its errors included: 400 naming the parameter, 503 with the reason the
/// source gives none, 500 otherwise; every error body is `{"error":...}` JSON.
private func answering(_ body: () throws -> Response) -> Response {
    do {
        return try body()
    } catch {
        return errorResponse(error)
    }
}

private func answering(_ body: () async throws -> Response) async -> Response {
    do {
        return try await body()
    } catch {
        return errorResponse(error)
    }
}

private func errorResponse(_ error: any Error) -> Response {
    switch error {
    case let bad as BadParameter:
        ErrorBody(error: bad.reason, parameter: bad.parameter).json(status: .badRequest)
    case let unavailable as FrameUnavailable:
        ErrorBody(error: unavailable.description, parameter: nil).json(status: .serviceUnavailable)
    case let tooMany as TooManyStreams:
        ErrorBody(error: "too many stream clients: at most \(tooMany.limit) at once (--max-streams)", parameter: nil)
            .json(status: .serviceUnavailable)
    default:
        ErrorBody(error: "\(error)", parameter: nil).json(status: .internalServerError)
    }
}

private struct ErrorBody: Encodable {
    let error: String
    let parameter: String?
}

extension Encodable {
    /// This value as a JSON response (keys sorted, so the text is stable).
    func json(status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
