import Eyedropper
import EyedropperCalibration
import EyedropperJPEG

/// The server's one executor for blocking work: threads of its own that run JPEG compression
/// (libturbojpeg's milliseconds of C), chart detection (about 11 ms a 720p frame) and
/// camera-control requests (opening the device, ioctls), so
/// that neither ever holds one of Swift concurrency's few cooperative threads (two on this
/// machine, shared with every request); a request awaits its result.
///
/// pthreads through `Thread` and `Monitor`, as `ParallelConverter` does, rather than NIO's
/// `NIOThreadPool`: each thread keeps its own JPEG encoders as plain locals (`Worker`), the thread
/// sanitizer understands the pthread mutex, and the server links nothing new. Each thread keeps up
/// to `encodersPerThread` encoders, one per quality, the least recently used dropped first, so the
/// default quality's encoder and its output buffer are reused frame after frame.
package final class BlockingWork: Sendable {
    /// What a job is given: the state of the thread it runs on.
    struct Worker {
        /// Most recently used first.
        fileprivate var encoders: [JPEGEncoder] = []
        fileprivate let encoderLimit: Int
        /// This thread's chart detector, made on its first use: its buffers are kept for the
        /// next frame of the same size.
        fileprivate var detector: ChartDetector?

        mutating func chartDetector() -> ChartDetector {
            if let detector { return detector }
            let made = ChartDetector()
            detector = made
            return made
        }

        /// This thread's encoder of `quality`, made (the least recently used dropped) if it has none.
        mutating func encoder(quality: Int) throws(JPEGError) -> JPEGEncoder {
            if let index = encoders.firstIndex(where: { $0.quality == quality }) {
                if index != 0 { encoders.insert(encoders.remove(at: index), at: 0) }
            } else {
                let encoder = try JPEGEncoder(quality: quality)
                if encoders.count == encoderLimit { encoders.removeLast() }
                encoders.insert(encoder, at: 0)
            }
            return encoders[0]
        }
    }

    private typealias Job = @Sendable (inout Worker) -> Void

    private final class Queue: @unchecked Sendable {
        let monitor = Monitor()
        var jobs: [Job] = []
        var stopping = false
    }

    private let queue = Queue()
    private let threads = Locked<[Thread]>([])

    package init(threads count: Int = 2, encodersPerThread limit: Int = 4) {
        precondition(count >= 1 && limit >= 1)
        let queue = queue
        threads.withLock { threads in
            threads = (0..<count).map { _ in Thread { Self.work(queue, encoderLimit: limit) } }
        }
    }

    /// Runs `body` on a pool thread, with that thread's state, and returns what it returns.
    /// Throws `CancellationError` once the pool is stopping, and whatever `body` throws.
    func run<R: Sendable>(_ body: @escaping @Sendable (inout Worker) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            let job: Job = { worker in continuation.resume(with: Result { try body(&worker) }) }
            let accepted = queue.monitor.locked {
                guard !queue.stopping else { return false }
                queue.jobs.append(job)
                queue.monitor.broadcast()
                return true
            }
            if !accepted { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `body` with an encoder of `quality` on a pool thread and returns what it returns.
    /// Throws `JPEGError` when no such encoder can be made, `CancellationError` once the pool is
    /// stopping, and whatever `body` throws.
    func withEncoder<R: Sendable>(
        quality: Int, _ body: @escaping @Sendable (JPEGEncoder) throws -> R
    ) async throws -> R {
        try await run { worker in try body(worker.encoder(quality: quality)) }
    }

    /// Ends the threads once the jobs already queued are done, and waits for them.
    package func stop() {
        queue.monitor.locked {
            queue.stopping = true
            queue.monitor.broadcast()
        }
        let threads = self.threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in threads { thread.join() }
    }

    private static func work(_ queue: Queue, encoderLimit: Int) {
        var worker = Worker(encoderLimit: encoderLimit)
        worker.encoders.reserveCapacity(encoderLimit)
        while true {
            let job: Job? = queue.monitor.locked {
                while queue.jobs.isEmpty && !queue.stopping { queue.monitor.wait() }
                return queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
            }
            guard let job else { return }
            job(&worker)
        }
    }
}
