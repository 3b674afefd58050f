import Benchmark

extension Benchmark.Configuration {
    /// What every suite measures: time, throughput and allocations per iteration (the thresholds
    /// in Thresholds/ hold the allocation counts), in microseconds so rows compare at a glance, for
    /// up to a second (or `maxDuration`) or 1000 iterations after a short warm-up.
    public static func suite(maxDuration: Duration = .seconds(1), warmupIterations: Int = 5) -> Self {
        .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal],
            timeUnits: .microseconds,
            warmupIterations: warmupIterations,
            maxDuration: maxDuration,
            maxIterations: 1000
        )
    }
}
