import Eyedropper
import Hummingbird

/// The newest frame as pictures: `frame.jpg` (one JPEG) and `stream.mjpg` (live MJPEG).
struct FrameController: Sendable {
    let frames: ServedFrames
    let jpeg: JPEGCache
    let streams: StreamLimit

    static let boundary = "eyedropperframe"

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("frame.jpg") { request, _ in try await frameJPEG(request) }
        group.getOnly("stream.mjpg") { request, _ in try mjpegStream(request) }
    }

    /// `?quality=Q`: the newest frame as JPEG.
    private func frameJPEG(_ request: Request) async throws -> Response {
        let quality = try QueryString(request.uri.query, allowed: ["quality"]).integer("quality", in: 1...100)
        try frames.requireSource()
        let frame = if let quality { try await jpeg.newest(quality: quality) } else { try await jpeg.newest() }
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: frame.jpeg))
    }

    /// multipart/x-mixed-replace: each part the newest frame when this client is ready for one.
    private func mjpegStream(_ request: Request) throws -> Response {
        _ = try QueryString(request.uri.query, allowed: [])
        return try streams.response(contentType: "multipart/x-mixed-replace; boundary=\(Self.boundary)") { writer in
            var last = -1
            while await frames.frame(after: last) != nil {
                guard let frame = try? await jpeg.newest() else { continue }
                last = frame.number
                var part = ByteBuffer(
                    string: "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(frame.jpeg.readableBytes)\r\n\r\n")
                part.writeImmutableBuffer(frame.jpeg)
                part.writeString("\r\n")
                try await writer.write(part)
            }
        }
    }
}
