import Eyedropper
import Hummingbird

/// Counts open stream responses (MJPEG and events) against `--max-streams`.
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

    /// A response whose body `write` produces until the client leaves or the server stops; throws
    /// `TooManyStreams` when `limit` are already open.
    func response(
        contentType: String, _ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void
    ) throws(TooManyStreams) -> Response {
        guard let place = open() else { throw TooManyStreams(limit: limit) }
        return Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody { writer in
                defer { withExtendedLifetime(place) {} }
                try await write(&writer)
                try await writer.finish(nil)
            })
    }

    /// One open stream. Its place frees when the response that holds it is gone, whether its body
    /// ran to the end, failed, or never started (the client left before the head was written).
    final class Place: Sendable {
        private let limit: StreamLimit
        fileprivate init(_ limit: StreamLimit) { self.limit = limit }
        deinit { limit.clients.withLock { $0 -= 1 } }
    }
}
