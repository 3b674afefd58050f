import Eyedropper
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notification protocol (sd_notify(3)), without linking libsystemd: datagrams of
/// `KEY=value` lines sent to the socket `NOTIFY_SOCKET` names. A unit of `Type=notify` sets it, and
/// `WatchdogSec=` sets `WATCHDOG_USEC` (and `WATCHDOG_PID`); without them every call does nothing.
///
/// `READY=1` once the server listens and the capture has its first outcome (a frame converted, or
/// the camera failing to open, which the `STATUS=` line then says), so that `systemctl start`
/// neither returns before there is anything to read nor waits for ever for a camera not yet
/// plugged in. `WATCHDOG=1` comes from the capture's own thread, at half the interval asked, on
/// every frame and every tenth of a second it waits for a camera: a capture that stops making
/// progress stops the pings, and systemd restarts the service.
final class SystemdNotifier: Sendable {
    /// The datagram socket, or -1 without `NOTIFY_SOCKET`.
    private let socket: Int32
    private let address: SocketAddress
    /// Half of `WATCHDOG_USEC`, in nanoseconds; 0 for no watchdog.
    private let watchdogHalfInterval: Int64
    /// `CLOCK_MONOTONIC` nanoseconds of the last `WATCHDOG=1`: the capture thread alone writes it.
    private let lastPing = Atomic<Int64>(0)
    /// Listening (1), the capture's first outcome (2): `READY=1` once both are.
    private let readiness = Atomic<Int>(0)

    /// `sockaddr_un` of `NOTIFY_SOCKET`, as bytes: a C struct of tuples is not `Sendable`.
    private struct SocketAddress: Sendable {
        var bytes: [UInt8] = []
    }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment` (the process's
    /// by default).
    init(environment: [String: String] = SystemdNotifier.processEnvironment) {
        var address = SocketAddress()
        var socket: Int32 = -1
        if let path = environment["NOTIFY_SOCKET"], let made = Self.address(path) {
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            address = made
        }
        self.socket = socket
        self.address = address
        // The watchdog is this process's only when WATCHDOG_PID names it (or is absent).
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        let usec = environment["WATCHDOG_USEC"].flatMap { Int64($0) } ?? 0
        watchdogHalfInterval = socket >= 0 && forUs && usec > 0 ? usec * 500 : 0
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    /// Whether systemd listens: NOTIFY_SOCKET was set and a socket made.
    var isActive: Bool { socket >= 0 }

    /// Sends `state`, lines of `KEY=value`; errors are ignored, as sd_notify's callers do.
    func send(_ state: String) {
        guard socket >= 0 else { return }
        var state = state
        state.withUTF8 { text in
            address.bytes.withUnsafeBytes { address in
                _ = sendto(
                    socket, text.baseAddress, text.count, Int32(MSG_NOSIGNAL),
                    address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
            }
        }
    }

    /// The capture made progress: `WATCHDOG=1` when half the interval has passed since the last.
    /// Called on every frame: a clock read and a comparison, a datagram every few seconds.
    func captureIsAlive() {
        guard watchdogHalfInterval > 0 else { return }
        let now = Self.monotonicNanoseconds
        guard now - lastPing.load(ordering: .relaxed) >= watchdogHalfInterval else { return }
        lastPing.store(now, ordering: .relaxed)
        send("WATCHDOG=1")
    }

    /// The server listens (`listening`) or the capture has its first outcome: `READY=1` and
    /// `status` once both have happened.
    /// Called after every frame: once ready, one relaxed load.
    func reached(listening: Bool, status: @autoclosure () -> String) {
        guard readiness.load(ordering: .relaxed) != 3 else { return }
        let step = listening ? 1 : 2
        let before = readiness.bitwiseOr(step, ordering: .acquiringAndReleasing).oldValue
        if before | step == 3, before != 3 { send("READY=1\nSTATUS=\(status())") }
    }

    /// `CLOCK_MONOTONIC`, which systemd's timestamps (`MONOTONIC_USEC=`) count in.
    static var monotonicNanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// `sockaddr_un` of a path, or of an abstract name (`@name`); nil when it does not fit.
    private static func address(_ path: String) -> SocketAddress? {
        var name = Array(path.utf8)
        guard !name.isEmpty, name[0] == UInt8(ascii: "/") || name[0] == UInt8(ascii: "@") else { return nil }
        if name[0] == UInt8(ascii: "@") { name[0] = 0 }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        guard name.count < MemoryLayout<sockaddr_un>.size - pathOffset else { return nil }
        var bytes = [UInt8](repeating: 0, count: pathOffset + name.count + (name[0] == 0 ? 0 : 1))
        withUnsafeBytes(of: sa_family_t(AF_UNIX)) { family in
            for (index, byte) in family.enumerated() { bytes[index] = byte }
        }
        bytes.replaceSubrange(pathOffset..<(pathOffset + name.count), with: name)
        return SocketAddress(bytes: bytes)
    }

    static var processEnvironment: [String: String] {
        var result: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}
