import Eyedropper
import Hummingbird

/// `GET /api/v1/recording.y4m?frames=N`: the camera's next N frames (default 300, at most
/// `maximumFrames`) as YUV4MPEG2, as `eyedropper record` writes them, streamed as they come: the
/// page's Record button holds it open while the button is held and keeps the whole frames it got.
/// `eyedropper sample --source FILE.y4m` reads the file back to the lines serve gave those frames.
/// Counts as a stream against `--max-streams`; waits, as the MJPEG stream does, while the source
/// has no frame.
struct RecordingController: Sendable {
    let tap: RecordingTap
    let streams: StreamLimit

    /// About a minute at 30 fps: 5.6 GB at 1080p, what a browser can still hold.
    static let maximumFrames = 1800
    static let defaultFrames = 300

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("recording.y4m") { request, _ in try record(request) }
    }

    private func record(_ request: Request) throws -> Response {
        let count =
            try QueryString(request.uri.query, allowed: ["frames"]).integer("frames", in: 1...Self.maximumFrames)
            ?? Self.defaultFrames
        guard let place = streams.open() else { throw TooManyStreams(limit: streams.limit) }
        let tap = tap
        return Response(
            status: .ok,
            headers: [
                .contentType: "video/x-yuv4mpeg", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"eyedropper.y4m\"",
            ],
            body: ResponseBody { writer in
                defer { withExtendedLifetime(place) {} }
                let (id, chunks) = tap.start()
                defer { tap.stop(id) }
                var written = 0
                for await chunk in chunks {
                    try await writer.write(chunk)
                    // The header comes first, with the first frame's chunk after it.
                    if chunk.getString(at: chunk.readerIndex, length: 5) == "FRAME" { written += 1 }
                    if written == count { break }
                }
                try await writer.finish(nil)
            })
    }
}
