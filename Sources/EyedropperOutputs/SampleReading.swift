import Eyedropper
#if canImport(Glibc)
import Glibc
import EyedropperCalibration
#endif

/// One line of samples as the outputs get it: what `sample --format json` prints for a frame (or
/// a block of frames), and the values it was made from.
public struct SampleReading {
    /// The JSON line, without its newline: `SampleJSON.object`; empty when only OSC listens,
    /// which does not read it.
    public var json: String
    /// The samples, in the order of the points.
    public var samples: [ColorSample]
    /// With a profile: one per sample, in order; empty without.
    public var calibrated: [CalibratedSample]
    /// When the frame was taken, in seconds since 1970 (UTC): `FrameTime.wallClock`.
    public var time: Double

    public init(json: String, samples: [ColorSample], calibrated: [CalibratedSample], time: Double) {
        self.json = json
        self.samples = samples
        self.calibrated = calibrated
        self.time = time
    }
}

/// Frame times on the wall clock, for outputs that carry one (OSC bundles' time tags).
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
