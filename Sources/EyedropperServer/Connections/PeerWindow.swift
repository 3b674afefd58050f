import NIOCore

/// Whether the client's application is reading, told from the receive window its kernel
/// advertises (TCP_INFO), sampled once a second while a response is open.
///
/// A client whose kernel keeps accepting bytes that its application never reads does not make the
/// connection unwritable for a long time: Linux grows a receive buffer to `tcp_rmem`'s maximum
/// (6 MiB by default) while bytes arrive unread, and for the event stream (about 7 KB/s) that is
/// many minutes. Its advertised window shows it sooner: the window shrinks by what it took unless
/// the application reads, and a read reopens it. Over a second, with `acked` the bytes the client
/// acknowledged and `freed` how far the window's right edge (acknowledged + window) moved:
/// - `freed >= acked`, `freed > 0`: the window did not shrink while bytes moved, so the
///   application read them (or the kernel grew the window): taking.
/// - the window shrank by at least half of what was acknowledged, or is closed and did not move:
///   not taking. (Not all of it: Linux rounds each window it advertises up to its scale unit, so
///   a client that reads nothing still moves the right edge by about half a unit per segment;
///   measured with 240-byte events at 30 per second, a third of what was sent at scale 7, half at
///   scale 8.)
/// - anything else (a client reading more slowly than the stream, nothing sent): no verdict.
///
/// A client that advertises a window scale of 9 or more (Linux with `tcp_rmem` at 16 MiB or more)
/// moves the right edge by as much as it is sent, read or not, and is never judged not taking.
struct PeerWindow {
    enum Verdict { case taking, notTaking, none }

    private var acked: UInt64 = 0
    private var rightEdge: UInt64 = 0
    private var started = false
    /// False once the first sample shows a zero window: a kernel older than 5.4, whose TCP_INFO
    /// has no `tcpi_snd_wnd` (a live connection that has just sent a request has an open window).
    private(set) var usable = true

    mutating func observe(_ info: TCPInfo) -> Verdict {
        guard usable else { return .none }
        let edge = info.bytesAcked &+ UInt64(info.sendWindow)
        defer {
            acked = info.bytesAcked
            rightEdge = edge
            started = true
        }
        guard started else {
            if info.sendWindow == 0 { usable = false }
            return .none
        }
        let took = info.bytesAcked &- acked
        let freed = edge &- rightEdge
        if freed > 0, freed >= took { return .taking }
        if took > 0, (took &- min(freed, took)) * 2 >= took { return .notTaking }
        if info.sendWindow == 0, freed == 0 { return .notTaking }
        return .none
    }
}

/// The leading part of Linux's `struct tcp_info` (linux/tcp.h) up to `tcpi_snd_wnd` (5.4), which
/// Glibc's `tcp_info` lacks. The kernel fills as much as it has and NIO zeroes the rest.
struct TCPInfo: Sendable {
    private var raw:
        (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    init() {}

    /// `tcpi_bytes_acked`.
    var bytesAcked: UInt64 { withUnsafeBytes(of: raw) { $0.load(fromByteOffset: 120, as: UInt64.self) } }
    /// `tcpi_snd_wnd`: the peer's advertised receive window, scaled, in bytes.
    var sendWindow: UInt32 { withUnsafeBytes(of: raw) { $0.load(fromByteOffset: 228, as: UInt32.self) } }

    /// TCP_INFO of `channel`'s socket, or nil (not a socket channel, or the call failed).
    static func of(_ channel: any Channel) -> EventLoopFuture<TCPInfo>? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        return provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
    }
}
