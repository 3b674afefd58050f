import Eyedropper
import EyedropperCalibration
import EyedropperOutputs
import EyedropperPipeline
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket bound to a free port on 127.0.0.1: the peer the sender is pointed at.
private final class Receiver {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                bind(fd, sockaddr, length) == 0 && getsockname(fd, sockaddr, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw ReceiverError() }
        port = Int(UInt16(bigEndian: address.sin_port))
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, nil after 2 s without one.
    func receive() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 70_000)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count >= 0 ? Array(buffer[..<count]) : nil
    }

    deinit { Glibc.close(fd) }

    struct ReceiverError: Error {}
}

/// One point, mean (255, 0, 127.5).
private func reading(points: Int = 1) -> Reading {
    var statistics = PatchStatistics(RGB8(r: 255, g: 0, b: 127))
    statistics.merge(PatchStatistics(RGB8(r: 255, g: 0, b: 128)))
    let samples = Array(repeating: ColorSample(point: .center, statistics: statistics), count: points)
    return Reading(
        frame: 0, timestamp: 0, time: 1_795_495_470.5, colorimetry: .bt709Limited, width: 1, height: 1, samples: samples)
}

/// This thread's malloc, calloc, realloc and aligned allocations so far, when the test runs
/// with Tests/Outputs/malloc_count.so preloaded (Tests/Outputs/osc-tests.sh does); nil without.
private let threadAllocations: (@convention(c) () -> UInt64)? = {
    guard let symbol = dlsym(nil, "eyedropper_thread_allocations") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
}()

@Suite struct OSCSenderTests {
    /// What arrives is the bundle `OSCBundle` writes, one datagram per frame; counted as sent.
    @Test func bundlesArriveAsWrittenAndAreCounted() throws {
        let receiver = try Receiver()
        let sender = try OSCSender(host: "127.0.0.1", port: receiver.port)
        defer { sender.close() }
        var expected = OSCBundle()
        _ = expected.write(reading(), from: 0)
        for _ in 0..<3 { sender.send(reading()) }
        for _ in 0..<3 { #expect(receiver.receive() == expected.bytes) }
        #expect(sender.counters.sent == 3 && sender.counters.failed == 0)
    }

    /// `[::1]`'s host as `ListenAddress` gives it, unbracketed, resolves and connects over IPv6.
    @Test func anIPv6PeerIsReached() throws {
        let sender = try OSCSender(host: "::1", port: 9)
        #expect(sender.peer == "[::1]:9")
        sender.close()
    }

    /// A frame of 1,000 points is two datagrams, both counted.
    @Test func aLargeFrameIsTwoDatagrams() throws {
        let receiver = try Receiver()
        let sender = try OSCSender(host: "127.0.0.1", port: receiver.port)
        defer { sender.close() }
        sender.send(reading(points: 1000))
        let sizes = [receiver.receive()?.count, receiver.receive()?.count]
        #expect(sizes.allSatisfy { ($0 ?? 0) > 16 && ($0 ?? .max) <= 65_507 })
        #expect(sender.counters.sent == 2 && sender.counters.failed == 0)
    }

    /// Nothing listening (a port just closed): the loopback's ICMP port unreachable fails later
    /// sends with ECONNREFUSED; they are counted, and send neither blocks nor throws. Sent until
    /// two have failed (however long the ICMP takes to come back on a loaded machine, up to 30 s),
    /// every send counted once. Catches a failure not counted, or counted as sent as well.
    @Test func sendsToAClosedPortAreCountedAsFailed() throws {
        let port = try Receiver().port  // bound, then closed at once
        let sender = try OSCSender(host: "127.0.0.1", port: port)
        let deadline = ContinuousClock.now + .seconds(30)
        var sends = 0
        while sender.counters.failed < 2 && ContinuousClock.now < deadline {
            sender.send(reading())
            sends += 1
            usleep(1000)  // not a window: the ICMP is waited for by sending again until it is back
        }
        let (sent, failed) = sender.counters
        #expect(sent + failed == sends)
        #expect(failed >= 2, "sent \(sent), failed \(failed) in 30 s")
        sender.close()
        sender.send(reading())  // closed: nothing, not counted
        #expect(sender.counters.sent == sent && sender.counters.failed == failed)
    }

    /// A name that cannot be resolved is EX_UNAVAILABLE (69), naming the host.
    @Test func anUnresolvableHostIs69() {
        #expect {
            _ = try OSCSender(host: "no-such-host.invalid", port: 9000)
        } throws: { error in
            guard let error = error as? OutputError else { return false }
            return error.exitStatus == 69 && error.description.contains("no-such-host.invalid")
        }
    }

    /// Once the first frame has gone, a frame allocates nothing: 10,000 sends of 10 points, to
    /// a peer that takes them and to a closed port (whose failure is counted, with no logger).
    /// Counted by Tests/Outputs/malloc_count.so, on this thread only.
    @Test(
        .enabled(
            if: threadAllocations != nil,
            "run with Tests/Outputs/malloc_count.so preloaded (Tests/Outputs/osc-tests.sh) to count allocations"))
    func sendingAllocatesNothingOnceWarm() throws {
        guard let threadAllocations else { return }
        // The counter counts this thread's allocations: a String of 100 bytes is one.
        let control = threadAllocations()
        let text = String(repeating: "x", count: 100 + Int(control % 7))
        #expect(threadAllocations() > control && text.utf8.count >= 100)
        let receiver = try Receiver()
        let closed = try Receiver().port
        // And with names from a palette: each written from the palette's own UTF-8.
        let palette = PaletteSettings(
            palette: try Palette(entries: [
                .init(name: "grey", lab: SIMD3(60, 0, 0)), .init(name: "rosé", lab: SIMD3(60, 30, 5)),
            ]), maxDeltaE: 20)
        let plain = reading(points: 10)
        let names = plain.samples.map { palette.name(PaletteSettings.cameraLab($0.statistics.mean), calibrated: false) }
        let named = Reading(
            frame: 0, timestamp: 0, time: plain.time, colorimetry: plain.colorimetry, width: 1, height: 1, samples: plain.samples,
            names: names, palette: palette)
        for (port, given) in [(receiver.port, plain), (closed, plain), (receiver.port, named)] {
            let sender = try OSCSender(host: "127.0.0.1", port: port)
            sender.send(given)
            let before = threadAllocations()
            for _ in 0..<10_000 { sender.send(given) }
            let allocations = threadAllocations() - before
            #expect(allocations == 0, "\(allocations) allocations in 10,000 sends to port \(port)")
            #expect(sender.counters.sent + sender.counters.failed == 10_001)
            sender.close()
        }
    }
}
