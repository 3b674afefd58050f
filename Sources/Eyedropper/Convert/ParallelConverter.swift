/// Converts one frame on several threads, each taking a band of rows (of at least half a megapixel).
///
/// The threads start once, in `init`, and wait between frames; a conversion hands them its rows
/// and returns when every band is done, so nothing is allocated per frame and the frame is never
/// used after `convert` returns. One owner calls `convert`; for several frames at once, use one
/// `YCbCrConverter` per worker instead.
public final class ParallelConverter {
    public let converter: YCbCrConverter
    /// The most threads one frame uses, the calling thread included.
    public let threads: Int

    /// Waking a helper thread costs more than converting a small frame gains: at 640x480, two
    /// threads took 0.046 ms against 0.034 on one, at 1280x720 they broke even, at 1920x1080 they
    /// won (0.18 ms against 0.23). So a band is at least this many pixels.
    static let minimumBandPixels = 1 << 19
    private let crew: BandCrew?

    public init(converter: YCbCrConverter, threads: Int) {
        precondition(threads >= 1, "a conversion needs at least one thread, got \(threads)")
        self.converter = converter
        self.threads = threads
        crew = threads > 1 ? BandCrew(helpers: threads - 1) : nil
    }

    deinit { crew?.stop() }

    /// Converts `frame` into `destination` exactly as `YCbCrConverter.convert` does.
    public func convert(
        _ frame: borrowing PlanarFrame, to format: OutputFormat,
        into destination: UnsafeMutableRawBufferPointer, stride: Int? = nil
    ) throws(FrameGeometryError) {
        let target = try RGBDestination(
            destination, format: format, width: frame.width, height: frame.height, stride: stride)
        let bands = min(threads, max(1, frame.width * frame.height / Self.minimumBandPixels))
        let job = BandJob(converter: converter, frame: frame.geometry, target: target, bands: bands)
        if bands > 1, let crew {
            crew.run(job)
        } else {
            job.convert(band: 0)
        }
    }
}

/// One frame's conversion, split into `bands` bands of whole chroma rows.
struct BandJob: Sendable {
    let converter: YCbCrConverter
    let frame: FrameGeometry
    let target: RGBDestination
    let bands: Int

    func convert(band: Int) {
        guard band < bands else { return }
        func boundary(_ index: Int) -> Int { index == bands ? frame.height : (index * frame.height / bands) & ~1 }
        let rows = boundary(band)..<boundary(band + 1)
        if !rows.isEmpty { converter.convertRows(frame, rows, into: target) }
    }
}

/// Helper threads that each convert one band of every job; the caller converts band 0.
///
/// All mutable state is guarded by `monitor` (hence `@unchecked Sendable`).
private final class BandCrew: @unchecked Sendable {
    private let monitor = Monitor()
    private var job: BandJob?
    private var generation: UInt64 = 0
    private var pending = 0
    private var stopping = false
    private var threads: [Thread] = []

    init(helpers: Int) {
        threads = (1...helpers).map { band in Thread { [self] in serve(band: band) } }
    }

    /// Runs `job` on every band and returns when all are done.
    func run(_ job: BandJob) {
        monitor.locked {
            self.job = job
            generation &+= 1
            pending = threads.count
            monitor.broadcast()
        }
        job.convert(band: 0)
        monitor.locked {
            while pending > 0 { monitor.wait() }
            self.job = nil
        }
    }

    private func serve(band: Int) {
        var seen: UInt64 = 0
        while let job = nextJob(after: &seen) {
            job.convert(band: band)
            monitor.locked {
                pending -= 1
                if pending == 0 { monitor.broadcast() }
            }
        }
    }

    /// The next job once the generation moves past `seen`; nil when stopping.
    private func nextJob(after seen: inout UInt64) -> BandJob? {
        monitor.locked {
            while generation == seen && !stopping { monitor.wait() }
            if stopping { return nil }
            seen = generation
            return job
        }
    }

    /// Ends the helper threads and waits for them.
    func stop() {
        monitor.locked {
            stopping = true
            monitor.broadcast()
        }
        for thread in threads { thread.join() }
    }
}
