import Eyedropper

/// How long a connection may hold the server without moving. A server on a network meets clients
/// that stop reading (a frozen tab, a laptop closed mid-stream), that send half a request and
/// wait, or that keep a connection open and say nothing; each holds a socket, and a stream client
/// a `--max-streams` place, until it is cut off.
public struct ClientTimeouts: Hashable, Sendable {
    /// A response whose client has taken nothing for this long is cut off and its stream place
    /// freed. "Taken nothing" is the connection refusing more bytes: the client's and the kernel's
    /// buffers are full and the server's own queue is past its high-water mark.
    public var stall: Duration = .seconds(10)
    /// A request whose head (request line and headers) is not complete this long after its first
    /// byte arrived is cut off. Also bounds a TLS handshake, whose bytes start the same clock.
    public var header: Duration = .seconds(10)
    /// A connection with no request in progress and nothing read for this long is closed (HTTP
    /// keep-alive); so is one that never sends a byte.
    public var idle: Duration = .seconds(60)

    public init() {}
}

/// What the timeouts did, for `/api/v1/status` and `/metrics`.
final class ConnectionCounters: Sendable {
    private let stalled = Locked(0)
    private let timedOutHeads = Locked(0)

    /// Responses cut off by `ClientTimeouts.stall` (stream clients, nearly always).
    var stalledStreamsClosed: Int { stalled.withLock { $0 } }
    /// Connections cut off by `ClientTimeouts.header`.
    var headerTimeouts: Int { timedOutHeads.withLock { $0 } }

    func countStall() { stalled.withLock { $0 += 1 } }
    func countHeaderTimeout() { timedOutHeads.withLock { $0 += 1 } }
}
