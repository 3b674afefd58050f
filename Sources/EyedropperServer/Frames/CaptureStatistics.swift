import CoreMetrics
import Eyedropper

/// Counters and timings of the capture thread, read by the status and metrics endpoints.
final class CaptureStatistics: Sendable {
    /// What the figures looked like at one moment.
    struct Snapshot: Sendable {
        var stream: String?
        var colorimetry: Colorimetry?
        var framesCaptured = 0
        var framesDropped = 0
        /// Frames a second over the last two seconds.
        var frameRate = 0.0
        /// Seconds to convert one frame to RGB24: the 50th, 90th and 99th percentile and the
        /// slowest of the last `window` frames.
        var conversion: [(quantile: Double, seconds: Double)] = []
        /// What differs between the frames and those the `--profile` was made from, as of the
        /// last frame (status: "profile.warnings").
        var profileWarnings: [String] = []
    }

    private struct State {
        var snapshot = Snapshot()
        var conversionTimes: [Double] = []
        var publishTimes: [ContinuousClock.Instant] = []
        var next = 0
    }

    /// How many recent frames the rate and percentiles cover.
    static let window = 1024
    private let state = Locked(State())
    /// Each frame's conversion time also goes to this histogram (`/metrics`), which covers every
    /// frame since the start where the percentiles cover the last `window`.
    private let conversionHistogram: CoreMetrics.Timer?

    init(conversionHistogram: CoreMetrics.Timer? = nil) {
        self.conversionHistogram = conversionHistogram
        state.withLock { state in
            state.conversionTimes.reserveCapacity(Self.window)
            state.publishTimes.reserveCapacity(Self.window)
        }
    }

    /// The stream the source delivers, e.g. "1280x720 NV12 read in place" (status: "format").
    func setStream(_ stream: String?) { state.withLock { $0.snapshot.stream = stream } }

    /// The frames' differences from the profile's, when the frames' colorimetry or size changed.
    func setProfileWarnings(_ warnings: [String]) { state.withLock { $0.snapshot.profileWarnings = warnings } }

    /// Frames the source delivered that were never converted (the capture thread was behind).
    func addDropped(_ count: Int) { state.withLock { $0.snapshot.framesDropped += count } }

    /// One frame published at `now`, converted in `conversion`.
    func recordFrame(conversion: Duration, at now: ContinuousClock.Instant, colorimetry: Colorimetry) {
        conversionHistogram?.record(duration: conversion)
        let conversionSeconds = conversion.inSeconds
        state.withLock { state in
            state.snapshot.framesCaptured += 1
            state.snapshot.colorimetry = colorimetry
            if state.conversionTimes.count < Self.window {
                state.conversionTimes.append(conversionSeconds)
                state.publishTimes.append(now)
            } else {
                state.conversionTimes[state.next] = conversionSeconds
                state.publishTimes[state.next] = now
            }
            state.next = (state.next + 1) % Self.window
        }
    }

    func snapshot() -> Snapshot {
        let (snapshot, conversions, publishes) = state.withLock { ($0.snapshot, $0.conversionTimes, $0.publishTimes) }
        var result = snapshot
        let now = ContinuousClock.now
        let recent = publishes.filter { $0.duration(to: now) <= .seconds(2) }
        if recent.count >= 2, let first = recent.min(), let last = recent.max(), last > first {
            result.frameRate = Double(recent.count - 1) / first.duration(to: last).inSeconds
        }
        let sorted = conversions.sorted()
        if !sorted.isEmpty {
            result.conversion = [0.5, 0.9, 0.99, 1].map { quantile in
                (quantile, sorted[min(sorted.count - 1, Int((quantile * Double(sorted.count)).rounded(.up)) - 1)])
            }
        }
        return result
    }
}
