#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A started thread, joined once.
package struct Thread {
    private let handle: pthread_t

    /// Starts `body` on a new thread.
    package init(_ body: @escaping @Sendable () -> Void) {
        final class Box: Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var handle = pthread_t()
        let status = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, Unmanaged.passRetained(Box(body)).toOpaque())
        precondition(status == 0, "cannot start a worker thread: \(String(cString: strerror(status)))")
        self.handle = handle
    }

    /// Waits for the thread to end.
    package func join() { pthread_join(handle, nil) }
}
