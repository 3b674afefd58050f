import Synchronization
import Testing

/// How the suites that keep a core busy share the machine in a debug build.
///
/// A debug build compiles the C row kernels without optimisation: converting a 1280x720 frame
/// takes some 26 ms there against 0.5 ms in a release build, so a test server capturing the test
/// pattern at 30 fps keeps most of a core busy, and an exhaustive sweep the same for minutes.
/// `swift test` starts every test at once, so in a debug build dozens of such servers on two cores
/// starve each other (and the command-line tests' subprocesses) past their time limits.
///
/// So in a debug build the suites that run servers or sweeps take turns: `.oneHeavySuiteAtATime`
/// runs one such suite at a time, before any of its tests' time limits start, and
/// `serializedInDebugBuilds` runs that suite's tests one after another. The other suites run
/// beside them as usual. In a release build (what `Scripts/test` runs) both traits do nothing.
public struct HeavySuiteTrait: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        #if DEBUG
            test.isSuite ? self : nil
        #else
            nil
        #endif
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await HeavySuiteTurn.shared.wait()
        defer { HeavySuiteTurn.shared.pass() }
        try await function()
    }
}

extension SuiteTrait where Self == HeavySuiteTrait {
    /// In a debug build, this suite runs while no other suite so marked does (see `HeavySuiteTrait`).
    public static var oneHeavySuiteAtATime: Self { HeavySuiteTrait() }
}

/// `.serialized` in a debug build, where the suite's tests each keep a core busy (see
/// `HeavySuiteTrait`); nothing in a release build.
#if DEBUG
    public let serializedInDebugBuilds: any SuiteTrait = ParallelizationTrait.serialized
#else
    public let serializedInDebugBuilds: any SuiteTrait = HeavySuiteTrait()
#endif

/// One turn at a time, handed to the waiters in the order they came.
final class HeavySuiteTurn: Sendable {
    static let shared = HeavySuiteTurn()

    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.taken {
                    state.waiting.append(continuation)
                    return false
                }
                state.taken = true
                return true
            }
            if now { continuation.resume() }
        }
    }

    func pass() {
        let next = state.withLock { state in
            if state.waiting.isEmpty {
                state.taken = false
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
