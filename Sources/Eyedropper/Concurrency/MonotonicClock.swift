#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The clock a pacer or a time window reads. The product's is the system's monotonic clock; a
/// test's is one it moves by hand (as swift-nio's `EmbeddedEventLoop.advanceTime(by:)` moves its
/// loop's), so that timing is tested to the nanosecond on any machine, loaded or not.
package protocol MonotonicClock: Sendable {
    /// The time since the clock's own origin.
    var now: Duration { get }
    /// Blocks the calling thread until `now` has reached `deadline` (at once when it has).
    func sleep(until deadline: Duration)
}

/// `CLOCK_MONOTONIC`: what `ContinuousClock` reads and systemd's timestamps count in.
package struct SystemClock: MonotonicClock {
    package init() {}

    /// The corresponding call is `clock_gettime(CLOCK_MONOTONIC)`.
    package var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// To the deadline itself, however often a signal interrupts the wait: the corresponding call
    /// is `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, which is resumed after `EINTR`.
    package func sleep(until deadline: Duration) {
        let (seconds, attoseconds) = deadline.components
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
