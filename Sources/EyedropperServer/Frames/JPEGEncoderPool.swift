import Eyedropper
import EyedropperJPEG

/// Threads of its own that compress JPEGs, so libturbojpeg's milliseconds of blocking C work never
/// hold one of Swift concurrency's few cooperative threads (two on this machine, shared with every
/// request); a request awaits its result.
///
/// pthreads through `Thread` and `Monitor`, as `ParallelConverter` does, rather than NIO's
/// `NIOThreadPool`: each thread keeps its own encoders as plain locals (a pool thread of NIO's has
/// no state of its own to keep them in), the thread sanitizer understands the pthread mutex, and
/// the server links nothing new. Each thread keeps up to `encodersPerThread` encoders, one per
/// quality, the least recently used dropped first, so the default quality's encoder and its output
/// buffer are reused frame after frame.
final class JPEGEncoderPool: Sendable {
    /// One compression: run on a pool thread with an encoder of `quality`.
    private struct Job: Sendable {
        let quality: Int
        let run: @Sendable (Result<JPEGEncoder, JPEGError>) -> Void
    }

    private final class Queue: @unchecked Sendable {
        let monitor = Monitor()
        var jobs: [Job] = []
        var stopping = false
    }

    private let queue = Queue()
    private let threads = Locked<[Thread]>([])
    init(threads count: Int = 2, encodersPerThread limit: Int = 4) {
        precondition(count >= 1 && limit >= 1)
        let queue = queue
        threads.withLock { threads in
            threads = (0..<count).map { _ in Thread { Self.work(queue, encoderLimit: limit) } }
        }
    }

    /// Runs `body` with an encoder of `quality` on a pool thread and returns what it returns.
    /// Throws `JPEGError` when no such encoder can be made, `CancellationError` once the pool is
    /// stopping, and whatever `body` throws.
    func withEncoder<R: Sendable>(
        quality: Int, _ body: @escaping @Sendable (JPEGEncoder) throws -> R
    ) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job(quality: quality) { encoder in continuation.resume(with: Result { try body(encoder.get()) }) }
            let accepted = queue.monitor.locked {
                guard !queue.stopping else { return false }
                queue.jobs.append(job)
                queue.monitor.broadcast()
                return true
            }
            if !accepted { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Ends the threads once the jobs already queued are done, and waits for them.
    func stop() {
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
        // Most recently used first.
        var encoders: [JPEGEncoder] = []
        encoders.reserveCapacity(encoderLimit)
        while true {
            let job: Job? = queue.monitor.locked {
                while queue.jobs.isEmpty && !queue.stopping { queue.monitor.wait() }
                return queue.jobs.isEmpty ? nil : queue.jobs.removeFirst()
            }
            guard let job else { return }
            if let index = encoders.firstIndex(where: { $0.quality == job.quality }) {
                if index != 0 { encoders.insert(encoders.remove(at: index), at: 0) }
            } else {
                do {
                    let encoder = try JPEGEncoder(quality: job.quality)
                    if encoders.count == encoderLimit { encoders.removeLast() }
                    encoders.insert(encoder, at: 0)
                } catch {
                    job.run(.failure(error))
                    continue
                }
            }
            job.run(.success(encoders[0]))
        }
    }
}
