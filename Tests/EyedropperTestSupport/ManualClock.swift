import Eyedropper
import Synchronization

/// A clock that moves only when told: by the test (`advance(by:)`), or by the code under test
/// sleeping, which moves it to the deadline at once (as swift-nio's `EmbeddedEventLoop` runs a
/// scheduled task when its time is advanced to). A pacer or a window tested on it never races.
package final class ManualClock: MonotonicClock {
    private let nanoseconds = Atomic<Int64>(0)
    private let slept = Mutex<[Duration]>([])

    package init() {}

    package var now: Duration { .nanoseconds(nanoseconds.load(ordering: .relaxed)) }

    /// The deadlines slept until, in order.
    package var sleeps: [Duration] { slept.withLock { $0 } }

    package func advance(by duration: Duration) {
        precondition(duration >= .zero, "a monotonic clock does not go back")
        nanoseconds.add(Self.nanoseconds(duration), ordering: .relaxed)
    }

    package func sleep(until deadline: Duration) {
        slept.withLock { $0.append(deadline) }
        nanoseconds.max(Self.nanoseconds(deadline), ordering: .relaxed)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
