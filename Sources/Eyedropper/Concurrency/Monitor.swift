#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A mutex with one condition variable: the only synchronisation the worker threads use.
///
/// pthreads rather than Swift concurrency because conversion and sampling threads must hand work
/// over without allocating per frame, and the thread sanitizer understands them.
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func locked<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits, inside `locked`, until another thread calls `broadcast`.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits, inside `locked`, until another thread calls `broadcast` or `seconds` pass; false
    /// when they passed.
    package func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)  // a condition variable's default clock
        let nanoseconds = Int(deadline.tv_nsec) + Int((max(0, seconds) * 1e9).rounded())
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// Wakes every waiting thread; call inside `locked`.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
