import Eyedropper

#if canImport(Glibc)
    import Glibc
#endif

/// Frame times on the wall clock, as `Reading.time` carries them (OSC bundles' time tags).
public enum FrameTime {
    /// A frame's time in seconds since 1970: for a camera, its driver timestamp (the monotonic
    /// clock, as V4L2 drivers give it) moved onto the wall clock; for a file or the test pattern,
    /// whose timestamps count from their own start, now.
    public static func wallClock(timestamp: Double, fromDriver: Bool) -> Double {
        let now = seconds(CLOCK_REALTIME)
        guard fromDriver else { return now }
        let age = seconds(CLOCK_MONOTONIC) - timestamp
        // A driver whose timestamps are not the monotonic clock: now is nearer than a guess.
        return (0..<60).contains(age) ? now - age : now
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
