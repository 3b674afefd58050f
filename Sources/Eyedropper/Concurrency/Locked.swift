/// A value only reachable under a lock: the shape of `Synchronization.Mutex`, on the pthread
/// mutex of `Monitor`.
///
/// Not `Mutex` itself: on Linux that locks with bare futex calls the thread sanitizer cannot see,
/// so every access it protects is reported as a race and the sanitizer stops telling real races
/// from those. `Monitor`'s pthread mutex is one it understands.
package final class Locked<Value>: @unchecked Sendable {
    private let monitor = Monitor()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value, holding the lock.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try monitor.locked { try body(&value) }
    }
}
