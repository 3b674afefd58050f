#if canImport(Glibc)
    import Glibc
#endif

/// Paces a source that has no clock of its own at `fps`, skipping (and counting) the frames it
/// fell behind by rather than rushing to catch up. The clock starts at the first frame: the time
/// between making the source and asking for a frame (a server starting up) is not a frame missed.
struct Pacer {
    let period: Duration
    private var start: ContinuousClock.Instant?
    private var next = -1

    init(fps: Double) { period = .seconds(1 / fps) }

    /// Seconds since the first frame for the current frame.
    var timestamp: Double { (period * next).inSeconds }

    /// Sleeps until the next frame is due; returns how many were skipped.
    mutating func waitForNextFrame() -> Int {
        let now = ContinuousClock.now
        guard let start else {
            start = now
            next = 0
            return 0
        }
        next += 1
        let late = (start + period * next).duration(to: now)
        if late > period {
            let skipped = Int(late / period)
            next += skipped
            return skipped
        }
        if late < .zero { usleep(useconds_t(-late.inSeconds * 1e6)) }
        return 0
    }
}
