import EyedropperPipeline
import NIOConcurrencyHelpers
import Synchronization

/// One frame's reading at the configured points, as the capture made it, and its JSON line, made
/// when the first client (an event stream, the sample endpoint, MQTT) wants it and then shared.
final class ServedReading: Sendable {
    let reading: Reading
    /// When the capture read it: how long the history keeps it.
    let readAt: ContinuousClock.Instant
    /// A pthread lock (NIOLock), not Synchronization's Mutex: the thread sanitizer sees the
    /// former's happens-before on Linux and not the latter's futex, and reported the line shared.
    private let line = NIOLockedValueBox<String?>(nil)

    init(_ reading: Reading, readAt: ContinuousClock.Instant) {
        self.reading = reading
        self.readAt = readAt
    }

    var frame: Int { reading.frame }

    /// `reading.json`, made once.
    var json: String {
        line.withLockedValue { line in
            if let line { return line }
            let made = reading.json
            line = made
            return made
        }
    }
}

/// The readings of the last `keptFor` (at most `capacity` of them), in frame order: what an event
/// stream client that reconnects with `Last-Event-ID` missed, and what a client slower than the
/// capture is behind by. The capture appends every frame's reading before the frame is published,
/// so a client woken by a frame finds its reading here.
final class ReadingHistory: Sendable {
    /// How long a reading is kept: a client away this long (a network cut, a restart of its own)
    /// misses nothing.
    static let keptFor = Duration.seconds(60)
    /// At most this many readings, whatever the frame rate: 60 s at 120 fps.
    static let capacity = 7200

    private struct Ring {
        var slots: [ServedReading?]
        /// The oldest's slot, and how many are kept.
        var head = 0
        var count = 0
    }

    private let ring: Mutex<Ring>
    private let keptFor: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    /// `now`: the clock readings are aged by (the tests' own).
    init(
        keptFor: Duration = ReadingHistory.keptFor, capacity: Int = ReadingHistory.capacity,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        precondition(capacity >= 1)
        ring = Mutex(Ring(slots: Array(repeating: nil, count: capacity)))
        self.keptFor = keptFor
        self.now = now
    }

    /// Keeps `reading` (the newest frame's), letting go of those older than `keptFor` and, when
    /// full, the oldest.
    func append(_ reading: Reading) -> ServedReading {
        let served = ServedReading(reading, readAt: now())
        ring.withLock { ring in
            let capacity = ring.slots.count
            if ring.count == capacity { Self.dropOldest(&ring) }
            ring.slots[(ring.head + ring.count) % capacity] = served
            ring.count += 1
            while ring.count > 1, let oldest = ring.slots[ring.head], oldest.readAt.duration(to: served.readAt) > keptFor {
                Self.dropOldest(&ring)
            }
        }
        return served
    }

    private static func dropOldest(_ ring: inout Ring) {
        ring.slots[ring.head] = nil
        ring.head = (ring.head + 1) % ring.slots.count
        ring.count -= 1
    }

    /// The newest reading's frame; nil before the first.
    var newestFrame: Int? {
        ring.withLock { ring in ring.count == 0 ? nil : ring.slots[(ring.head + ring.count - 1) % ring.slots.count]?.frame }
    }

    /// The readings of the frames after `frame`, oldest first, and how many of those frames were
    /// no longer kept (older than the oldest kept). Frames are numbered one after another, so the
    /// first is found by its number.
    func readings(after frame: Int) -> (missed: Int, readings: [ServedReading]) {
        ring.withLock { ring in
            let capacity = ring.slots.count
            guard ring.count > 0, let oldest = ring.slots[ring.head]?.frame else { return (0, []) }
            let skip = min(max(0, frame + 1 - oldest), ring.count)
            let kept = (skip..<ring.count).compactMap { ring.slots[(ring.head + $0) % capacity] }
            return (max(0, oldest - frame - 1), kept)
        }
    }
}
