import Eyedropper

/// Paces a source that has no clock of its own at `fps`, skipping (and counting) the frames it
/// fell behind by rather than rushing to catch up. The clock starts at the first frame: the time
/// between making the source and asking for a frame (a server starting up) is not a frame missed.
struct Pacer {
    let period: Duration
    private let clock: any MonotonicClock
    private var start: Duration?
    private var next = -1

    /// `clock`: the system's, or a test's moved by hand.
    init(fps: Double, clock: any MonotonicClock) {
        period = .seconds(1 / fps)
        self.clock = clock
    }

    /// Seconds since the first frame for the current frame.
    var timestamp: Double { (period * next).inSeconds }

    /// Sleeps until the next frame is due; returns how many were skipped.
    mutating func waitForNextFrame() -> Int {
        let now = clock.now
        guard let start else {
            start = now
            next = 0
            return 0
        }
        next += 1
        let due = start + period * next
        let late = now - due
        if late > period {
            let skipped = Int(late / period)
            next += skipped
            return skipped
        }
        if late < .zero { clock.sleep(until: due) }
        return 0
    }
}
