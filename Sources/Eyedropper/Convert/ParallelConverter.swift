import Synchronization

/// Converts one frame on several threads, which share its rows in chunks.
///
/// The threads start once, in `init`, and wait between frames, spinning for 0.2 ms before they
/// sleep. A conversion wakes them and converts rows itself at once, taking chunks of rows from a
/// shared counter, so a helper that wakes late takes only what is left instead of holding up
/// the frame (waking a sleeping thread can take as long as half a 1080p frame: docs/performance.md, Threads;
/// Benchmarks/Probes/handoff.c). `convert` returns when every chunk is done, so nothing is
/// allocated per frame and the frame is never used after it returns. One owner calls `convert`;
/// for several frames at once, use one `YCbCrConverter` per worker instead.
public final class ParallelConverter {
    public let converter: YCbCrConverter
    /// The most threads one frame uses, the calling thread included.
    public let threads: Int

    /// Frames with fewer pixels are converted on the calling thread alone: at 640x480, waking a
    /// helper cost more than it saved.
    public static let minimumSharedPixels = 1 << 19
    private let crew: ChunkCrew?

    public init(converter: YCbCrConverter, threads: Int) {
        precondition(threads >= 1, "a conversion needs at least one thread, got \(threads)")
        self.converter = converter
        self.threads = threads
        crew = threads > 1 ? ChunkCrew(helpers: threads - 1) : nil
    }

    deinit { crew?.stop() }

    /// Converts `frame` into `destination` exactly as `YCbCrConverter.convert` does.
    public func convert(
        _ frame: borrowing PlanarFrame, to layout: RGBLayout,
        into destination: UnsafeMutableRawBufferPointer, stride: Int? = nil
    ) throws(FrameGeometryError) {
        let target = try RGBDestination(
            destination, layout: layout, width: frame.width, height: frame.height, stride: stride)
        let job = ChunkJob(converter: converter, frame: frame.geometry, target: target)
        if let crew, frame.width * frame.height >= Self.minimumSharedPixels {
            crew.run(job)
        } else {
            converter.convertRows(frame.geometry, 0..<frame.height, into: target)
        }
    }
}

/// One frame's conversion, in chunks of `rowsPerChunk` rows.
struct ChunkJob: Sendable {
    let converter: YCbCrConverter
    let frame: FrameGeometry
    let target: RGBDestination

    /// Even, so no chunk splits a chroma row; small, so a helper that wakes late still finds work
    /// and the caller never waits long for the last chunk; large enough that claiming one (an
    /// atomic add) costs nothing next to converting it.
    static let rowsPerChunk = 16

    var chunks: Int { (frame.height + Self.rowsPerChunk - 1) / Self.rowsPerChunk }

    func convert(chunk: Int) {
        let top = chunk * Self.rowsPerChunk
        converter.convertRows(frame, top..<min(frame.height, top + Self.rowsPerChunk), into: target)
    }
}

/// Helper threads that, when woken for a job, take chunks of it until none is left; the caller
/// takes chunks too, from the same counter.
///
/// The job and its generation are guarded by `monitor` (hence `@unchecked Sendable`); chunks
/// are claimed from the atomic `nextChunk`, reset under the monitor before each job is published.
private final class ChunkCrew: @unchecked Sendable {
    private let monitor = Monitor()
    private let nextChunk = Atomic<Int>(0)
    /// `generation`, readable without the monitor: helpers watch it for a while before sleeping.
    private let published = Atomic<UInt64>(0)
    private var job: ChunkJob?
    private var generation: UInt64 = 0
    /// Helpers inside the current job: the caller waits for them before the frame is released.
    /// Joined under the monitor, left without it: the caller spins on it rather than sleeping,
    /// since a helper is at most one chunk (microseconds) from done, and a caller put to sleep
    /// is woken onto the helper's CPU, where the two then take turns instead of running at once.
    private let working = Atomic<Int>(0)
    private var stopping = false
    private var threads: [Thread] = []

    init(helpers: Int) {
        threads = (1...helpers).map { _ in Thread { [self] in serve() } }
    }

    /// Runs every chunk of `job` and returns when all are done.
    func run(_ job: ChunkJob) {
        monitor.locked {
            nextChunk.store(0, ordering: .relaxed)
            self.job = job
            generation &+= 1
            published.store(generation, ordering: .relaxed)
            monitor.broadcast()
        }
        convertChunks(of: job)
        // Every chunk is claimed; close the job so late helpers skip it, and wait for the
        // helpers still converting theirs.
        monitor.locked { self.job = nil }
        while working.load(ordering: .acquiring) > 0 {}
    }

    private func convertChunks(of job: ChunkJob) {
        let chunks = job.chunks
        while true {
            let chunk = nextChunk.wrappingAdd(1, ordering: .relaxed).oldValue
            if chunk >= chunks { return }
            job.convert(chunk: chunk)
        }
    }

    private func serve() {
        var seen: UInt64 = 0
        while true {
            awaitPublication(after: seen)
            switch nextJob(after: &seen) {
            case .stop:
                return
            case .closed:
                continue  // woke too late for that job: watch for the next one awake
            case let .open(job):
                convertChunks(of: job)
                working.subtract(1, ordering: .releasing)
            }
        }
    }

    /// Spins for up to `spin` watching for a job after `seen`: frames converted back
    /// to back then find the helper awake, instead of paying to wake it each time.
    private func awaitPublication(after seen: UInt64) {
        let deadline = ContinuousClock.now + Self.spin
        while published.load(ordering: .relaxed) == seen {
            for _ in 0..<64 where published.load(ordering: .relaxed) == seen {}
            if ContinuousClock.now > deadline { return }
        }
    }

    static let spin = Duration.microseconds(200)

    private enum Next {
        case open(ChunkJob)
        case closed, stop
    }

    /// Waits until the generation moves past `seen`: the job if it is still open (counted in
    /// `working`), `.closed` if the caller already finished it, `.stop` when stopping.
    private func nextJob(after seen: inout UInt64) -> Next {
        monitor.locked {
            while generation == seen && !stopping { monitor.wait() }
            if stopping { return .stop }
            seen = generation
            guard let job else { return .closed }
            working.add(1, ordering: .relaxed)
            return .open(job)
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
