import Eyedropper
import EyedropperPipeline
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
    import EyedropperPipeline
#endif

/// OSC 1.0 over UDP: per line of samples, one bundle time-tagged with the frame's time, holding
/// for each point i `/eyedropper/<i>/rgb` (three floats, mean / 255), `/eyedropper/<i>/hex` (a
/// string) and, with a profile, `/eyedropper/<i>/lab` (three floats); `OSCBundle` says more,
/// and how a frame too large for one datagram is split.
///
/// Our own encoder rather than liblo's: the bundle is written into one buffer kept from frame to
/// frame, so a frame allocates nothing (liblo allocates a message per address and a bundle per
/// frame), the time tag is the frame's, and there is no C library to install.
///
/// Sending never blocks and never fails the capture: a bundle the system does not take (nothing
/// listening on the peer's port, a full send buffer) is counted and dropped. The first failure of
/// a run is said through the logger; a run ends when none has failed for `quietPeriod`.
public final class OSCSender: Sendable {
    /// The peer as given: `host:port`.
    public let peer: String
    private let logger: Logger?
    private let state: Locked<State>
    private let sentCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)

    /// How long sends must all succeed for a run of failures to be over (and a new failure said
    /// again). A closed port on loopback fails every other send (each success brings back an
    /// ICMP port unreachable that fails the next), so one success cannot end a run.
    public static let quietPeriod = Duration.seconds(5)

    /// What the capture thread changes: the socket (nil once closed), the bundle buffer and the
    /// current run of failures.
    private struct State {
        var socket: UDPPeer?
        var bundle = OSCBundle()
        /// Failures since the run began; 0 when not in one.
        var runFailures = 0
        var lastFailure = ContinuousClock.now
    }

    /// Resolves `host` once (a name, an IPv4 or an IPv6 address) and connects a UDP socket to
    /// it. Throws `OutputError` when it cannot be resolved or reached. `logger` hears where the
    /// bundles go and of failed sends.
    public init(host: String, port: Int, logger: Logger? = nil) throws(OutputError) {
        let socket = try UDPPeer(host: host, port: port)
        peer = socket.peer
        self.logger = logger
        logger?.info("OSC bundles go to \(socket.address)\(socket.address == peer ? "" : " (\(peer))")")
        state = Locked(State(socket: socket))
    }

    /// Bundles the system has taken and bundles it has refused, since the start. A frame split
    /// into several bundles counts as several. Readable from any thread.
    public var counters: (sent: Int, failed: Int) {
        (sentCount.load(ordering: .relaxed), failedCount.load(ordering: .relaxed))
    }

    /// Sends the bundle (or bundles) of `reading`; never blocks. Allocates nothing once the
    /// first frame has been sent, except to say a failure.
    public func send(_ reading: Reading) {
        state.withLock { state in
            guard let socket = state.socket else { return }
            var next = 0
            repeat {
                next = state.bundle.write(reading, from: next)
                let error = state.bundle.withBytes { socket.send($0) }
                record(error, in: &state)
            } while next < reading.samples.count
        }
    }

    /// Closes the socket; later sends do nothing.
    public func close() {
        state.withLock { $0.socket = nil }
    }

    /// Counts one send and keeps the run of failures.
    private func record(_ error: Int32, in state: inout State) {
        // The clock only matters in a run of failures, or at a failure: a bundle sent outside
        // one reads nothing.
        guard error != 0 || state.runFailures > 0 else {
            sentCount.add(1, ordering: .relaxed)
            return
        }
        let now = ContinuousClock.now
        if state.runFailures > 0, state.lastFailure.duration(to: now) >= Self.quietPeriod {
            logger?.info("OSC to \(peer): sending again; \(state.runFailures) bundles failed before")
            state.runFailures = 0
        }
        guard error != 0 else {
            sentCount.add(1, ordering: .relaxed)
            return
        }
        failedCount.add(1, ordering: .relaxed)
        if state.runFailures == 0, let logger {  // only then: the String is an allocation
            let reason = String(cString: strerror(error))
            let hint = error == ECONNREFUSED ? " (is anything listening there?)" : ""
            logger.warning(
                """
                warning: OSC to \(peer): \(reason)\(hint); bundles that fail are counted, \
                not said, until none has for \(Self.quietPeriod)
                """)
        }
        state.runFailures += 1
        state.lastFailure = now
    }
}
