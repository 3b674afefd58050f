import Eyedropper

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket `connect()`ed to one OSC peer: the name is resolved once, at the start, and
/// every send goes to that address without blocking (the socket is non-blocking), so the capture
/// never waits on the network. Connected, the socket also hears of a closed port on the peer
/// (ICMP port unreachable), as `ECONNREFUSED` from a later send. A class, made once: its
/// deinit closes the socket.
final class UDPPeer {
    private let fd: Int32
    /// The peer as given: `host:port`, IPv6 in brackets.
    let peer: String
    /// The address resolved, numeric: `127.0.0.1:9000`, `[::1]:9000`.
    let address: String

    /// Resolves `host` (a name, IPv4 or IPv6 address) with getaddrinfo and connects to the first
    /// of its addresses that takes a connection; throws when none does.
    init(host: String, port: Int) throws(OutputError) {
        peer = hostAndPort(host, String(port))
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            let reason = resolved == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(resolved))
            throw OutputError(.unavailable, "OSC peer \(peer) (--osc): cannot resolve \(host): \(reason)")
        }
        defer { freeaddrinfo(list) }
        var failure = (call: "", code: Int32(0))
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            entry = info.ai_next
            let fd = socket(info.ai_family, Int32(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), info.ai_protocol)
            guard fd >= 0 else {
                failure = ("socket", errno)
                continue
            }
            guard connect(fd, info.ai_addr, info.ai_addrlen) == 0 else {
                failure = ("connect", errno)
                Glibc.close(fd)
                continue
            }
            self.fd = fd
            address = Self.numeric(info.ai_addr, length: info.ai_addrlen) ?? peer
            return
        }
        let reason = String(cString: strerror(failure.code))
        throw failure.call == "socket"
            ? OutputError(.noSocket, "OSC peer \(peer) (--osc): no UDP socket: \(reason)")
            : OutputError(.unavailable, "OSC peer \(peer) (--osc): cannot reach it: \(reason)")
    }

    deinit {
        Glibc.close(fd)
    }

    /// Sends `bytes` as one datagram, never waiting: 0 when the system took it, else the errno
    /// (`EAGAIN` for a full send buffer, `ECONNREFUSED` for a closed port on the peer, ...).
    func send(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        switch SystemCalls.retryingInterrupts({ Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT)) }) {
        case .success: 0
        case let .failure(error): error.rawValue
        }
    }

    /// `host:port` of a socket address, numeric, IPv6 in brackets; nil if getnameinfo fails.
    private static func numeric(_ address: UnsafeMutablePointer<sockaddr>?, length: socklen_t) -> String? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var port = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        guard getnameinfo(address, length, &host, socklen_t(host.count), &port, socklen_t(port.count), NI_NUMERICHOST | NI_NUMERICSERV) == 0
        else { return nil }
        return hostAndPort(cText(host), cText(port))
    }
}
