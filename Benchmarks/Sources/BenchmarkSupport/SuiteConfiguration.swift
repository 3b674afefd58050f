import Benchmark

#if canImport(Glibc)
    import Glibc
#endif

extension Benchmark.Configuration {
    /// What every suite measures: time, throughput and allocations per iteration (the thresholds
    /// in Thresholds/ hold the allocation counts), in microseconds so rows compare at a glance, for
    /// up to a second (or `maxDuration`) or 1000 iterations after a short warm-up.
    ///
    /// With `EYEDROPPER_BENCHMARK_ALLOCATIONS_ONLY=1` in the environment (`Scripts/test`'s check of
    /// the thresholds) each row runs its warm-up and then 10 iterations at most (0.2 s at most):
    /// an allocation count is exact, the same in every iteration after the warm-up, so 10 check it
    /// as well as 1000, and the check took 2m15s instead of about 4 minutes. The times of such a run mean
    /// little: compare speed on a full run.
    public static func suite(maxDuration: Duration = .seconds(1), warmupIterations: Int = 5) -> Self {
        let allocationsOnly = getenv("EYEDROPPER_BENCHMARK_ALLOCATIONS_ONLY").map { String(cString: $0) == "1" } ?? false
        return .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal],
            timeUnits: .microseconds,
            warmupIterations: warmupIterations,
            maxDuration: allocationsOnly ? .milliseconds(200) : maxDuration,
            maxIterations: allocationsOnly ? 10 : 1000
        )
    }
}
