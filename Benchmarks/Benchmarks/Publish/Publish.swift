// Lines of samples published to a local Mosquitto broker (started here, on a free loopback port),
// the way `eyedropper sample --mqtt` and `serve --mqtt` publish them, beside libmosquitto called
// directly on the same lines.
//
// Rows read "Publish_1000-lines_<points>_<implementation>"; one iteration publishes 1000 lines
// (QoS 0) and waits until the client has written every one to the broker's socket:
//   eyedropper    MQTTPublisher.publish for each line (a copy into the bounded queue), then
//                 flush: the publisher thread hands them to libmosquitto, whose own thread writes
//                 them. Fails if a line is dropped: 1000 lines a second must pass with no drop.
//   libmosquitto  mosquitto_publish for each line from one thread, with libmosquitto's network
//                 thread writing them (loop_start, as MQTTPublisher runs it): the floor, and the
//                 count of libmosquitto's own allocations per line.
// The thresholds hold the allocation counts: equal counts say Eyedropper's own part allocates
// nothing once warm (libmosquitto copies each message into packets of its own). An iteration's
// time under a second says the path takes more than 1000 lines a second.

import Benchmark
import BenchmarkSupport
import CMosquittoBench
import Eyedropper
import EyedropperOutputs
import EyedropperPipeline
import Foundation
import Logging
import Synchronization

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .suite()
    let lines = 1000
    for points in [1, 10] {
        let name = "Publish_\(lines)-lines_\(points)-points"
        Benchmark("\(name)_eyedropper") { _, fixture in
            for _ in 0..<lines { fixture.publisher.publish(fixture.line) }
            let left = fixture.publisher.flush(seconds: 10)
            if left > 0 || fixture.publisher.dropped > 0 {
                fatalError("\(left) lines left after 10 s, \(fixture.publisher.dropped) dropped: below 1000 lines a second")
            }
        } setup: {
            EyedropperFixture(points: points)
        } teardown: {
            LocalBroker.stop()
        }
        Benchmark("\(name)_libmosquitto") { _, fixture in
            fixture.publish(lines)
        } setup: {
            LibmosquittoFixture(points: points)
        } teardown: {
            LocalBroker.stop()
        }
    }
}

/// The broker, once per process (package-benchmark runs each row in a process of its own):
/// Debian's mosquitto on a free port of 127.0.0.1, stopped by the row's teardown.
enum LocalBroker {
    static let port: Int = {
        let port = freePort()
        let configuration = FileManager.default.temporaryDirectory.appendingPathComponent("eyedropper-bench-mosquitto-\(getpid()).conf")
        var text = "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n"
        if getuid() == 0 { text += "user root\n" }
        try! text.write(to: configuration, atomically: true, encoding: .utf8)
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", configuration.path]
        // Not the benchmark's own output: package-benchmark reads it to its end.
        (broker.standardInput, broker.standardOutput, broker.standardError) = (
            FileHandle.nullDevice, FileHandle.nullDevice, FileHandle.nullDevice
        )
        do { try broker.run() } catch { fatalError("cannot start mosquitto (Scripts/bench installs it): \(error)") }
        brokerPid.store(broker.processIdentifier, ordering: .relaxed)
        for _ in 0..<100 where !listening(port) { usleep(50_000) }
        return port
    }()

    private static let brokerPid = Atomic<Int32>(0)

    static func stop() {
        let pid = brokerPid.exchange(0, ordering: .relaxed)
        if pid > 0 { kill(pid, SIGKILL) }  // SIGTERM is blocked in what package-benchmark starts
    }

    private static func freePort() -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func listening(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// The line `sample --format json` prints for a test-pattern frame sampled at `points` random
/// points with radius 2.
func sampleLine(points count: Int) -> Reading {
    let frame = FrameContent.noisyPattern.makeFrame(width: 1920, height: 1080)
    var samples: [ColorSample] = []
    do {
        try frame.withFrame { frame in
            try ColorSampler(colorimetry: frame.colorimetry).sample(frame, at: SplitMix64.samplePoints(count), radius: 2, into: &samples)
        }
    } catch {
        fatalError("cannot sample the frame: \(error)")
    }
    return Reading(
        frame: 123_456, timestamp: 4115.2, time: 0, colorimetry: frame.colorimetry, width: 1920, height: 1080,
        samples: samples)
}

/// An `MQTTPublisher` as `--mqtt` makes it (QoS 0, a queue of 1000), warmed: every slot of its
/// queue has held a line.
final class EyedropperFixture {
    let publisher: MQTTPublisher
    /// Made once, as libmosquitto's payload is: the rows compare what publishing a line costs.
    let line: String

    init(points: Int) {
        line = sampleLine(points: points).json
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        do {
            publisher = try MQTTPublisher(
                MQTTSettings(broker: MQTTBroker(host: "127.0.0.1", port: LocalBroker.port), topic: "bench/eyedropper"), logger: logger)
        } catch {
            fatalError("cannot connect to the local broker: \(error)")
        }
        for _ in 0..<2 {
            for _ in 0..<1000 { publisher.publish(line) }
            _ = publisher.flush(seconds: 10)
        }
    }

    deinit { publisher.close() }
}

/// libmosquitto on its own: a client with its network thread, the same line as bytes, and a
/// count of the messages it has written (on_publish).
final class LibmosquittoFixture {
    let client: OpaquePointer
    let payload: [UInt8]
    let sent = Atomic<Int>(0)
    private var expected = 0

    init(points: Int) {
        mosquitto_lib_init()
        payload = Array(sampleLine(points: points).json.utf8)
        client = mosquitto_new(nil, true, nil)
        mosquitto_user_data_set(client, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_publish_callback_set(client) { _, context, _ in
            Unmanaged<LibmosquittoFixture>.fromOpaque(context!).takeUnretainedValue().sent.add(1, ordering: .releasing)
        }
        guard mosquitto_connect(client, "127.0.0.1", Int32(LocalBroker.port), 20) == MOSQ_ERR_SUCCESS.rawValue else {
            fatalError("libmosquitto cannot connect to the local broker")
        }
        mosquitto_loop_start(client)
        publish(1000)
    }

    /// Publishes `count` lines and waits until libmosquitto has written them all.
    func publish(_ count: Int) {
        expected += count
        for _ in 0..<count {
            payload.withUnsafeBytes { _ = mosquitto_publish(client, nil, "bench/libmosquitto", Int32($0.count), $0.baseAddress, 0, false) }
        }
        while sent.load(ordering: .acquiring) < expected { usleep(50) }
    }

    deinit {
        mosquitto_disconnect(client)
        mosquitto_loop_stop(client, false)
        mosquitto_destroy(client)
    }
}
