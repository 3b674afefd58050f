import Dispatch

/// Where the in-process server's tasks run in the tests: threads of Dispatch's own, not Swift
/// concurrency's cooperative pool. That pool has as many threads as cores (two here), and the
/// other suites of `swift test` hold them for seconds at a time with blocking work (subprocesses,
/// exhaustive sweeps), while these tests read live streams against a capture that keeps its own
/// time: on a starved pool a stream reader sees a few of the frames the capture made. A server
/// under test is a program of its own in real life; this gives it threads of its own.
final class ServerTestExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = ServerTestExecutor()

    private let queue = DispatchQueue(label: "eyedropper.server-tests", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs `body` with the server tests' executor preferred, as the test itself and every task it
/// starts with `serverTask`, or as a child, does.
func onServerThreads<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
    try await withTaskExecutorPreference(ServerTestExecutor.shared) { try await body() }
}

/// An unstructured task on the server tests' executor (an unstructured task does not inherit the
/// preference of the task that makes it).
func serverTask<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) -> Task<Value, any Error> {
    Task(executorPreference: ServerTestExecutor.shared) { try await body() }
}
