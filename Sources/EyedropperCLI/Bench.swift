import ArgumentParser
import Eyedropper
import EyedropperCapture

#if canImport(Glibc)
    import Glibc
#endif

/// `eyedropper bench`: how long converting one frame takes, here, on this CPU.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure per-frame YCbCr -> RGB conversion time.",
        discussion: """
            Converts frames from SRC (default: the test pattern at 1920x1080) into one reused RGB \
            buffer and prints the minimum, median, 99th percentile and maximum time per frame, \
            and megapixels per second at the median. The first 10 frames of the test pattern or \
            a file warm the caches and are not counted; a camera's --skip frames are dropped \
            before timing starts, and for a camera the interval between frames is printed too. \
            The test pattern is one frame converted again and again, so it stays in cache when it \
            fits: a camera's new frame each time is slower to read. For comparisons with other \
            converters, see Benchmarks/ in the source tree.

            --format json prints one object: \
            {"width":1920,"height":1080,"layout":"i420","output":"rgba","threads":1,"frames":300,"min_ms":...,"median_ms":...,"p99_ms":...,"max_ms":...,"mpix_per_s":...,"kernel":"avx512"} \
            with, for a camera, "interval_median_ms" and "fps" after it.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(help: "Layout of the test pattern's frames: i420, yv12, nv12 or nv21 (a camera's or file's is its own).")
    var layout: PixelLayout?

    @Option(help: "RGB layout written: rgb24, rgba or bgra.")
    var output: RGBLayout = .rgba

    @Option(help: "Threads converting each frame, sharing its rows in chunks (a frame under half a megapixel uses one).")
    var threads: Int = 1

    @Option(help: "Frames to time, after the warm-up.")
    var frames: Int = 300

    @Option(help: "Row kernel: scalar, simd, avx2 or avx512 (default: the fastest this CPU runs).")
    var kernel: ConversionKernel?

    @Option(help: "text or json (one object).")
    var format: ListingFormat = .text

    /// Frames of the test pattern or a file converted before timing starts.
    static let warmUpFrames = 10

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1, got \(frames)") }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256, got \(threads)") }
        if let kernel, !kernel.isSupported {
            let supported = ConversionKernel.supported.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--kernel \(kernel.rawValue): this CPU cannot run it; it runs \(supported)")
        }
        if layout != nil, let source = input.sourceName, source != .testPattern {
            throw ValidationError(
                "--layout sets the test pattern's layout; \(source) delivers its own (for a camera, ask with --pixel-format)")
        }
    }

    func run() throws {
        // The test pattern unless told otherwise: a benchmark should not depend on what is plugged in.
        var configuration = try input.configuration(fallback: .testPattern)
        if configuration.source == .testPattern, input.size == nil { (configuration.width, configuration.height) = (1920, 1080) }
        configuration.patternLayout = layout ?? .i420
        let source = configuration.source
        let isCamera = source.isCamera
        let warmUp = isCamera ? 0 : Self.warmUpFrames

        var timer = FrameTimer(frames: frames, warmUp: warmUp, showProgress: isatty(STDERR_FILENO) != 0)
        var converter: ParallelConverter?
        var rgb = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        defer { rgb.deallocate() }
        var shape: (width: Int, height: Int, layout: PixelLayout, colorimetry: Colorimetry)?
        try input.forEachFrame(configuration, limit: frames + warmUp, done: "converted") { frame, timestamp in
            let colorimetry = frame.colorimetry
            if converter?.converter.colorimetry != colorimetry {
                converter = ParallelConverter(
                    converter: YCbCrConverter(colorimetry: colorimetry, kernel: kernel ?? .best), threads: threads)
            }
            let byteCount = frame.width * frame.height * output.bytesPerPixel
            if rgb.count < byteCount {
                rgb.deallocate()
                rgb = .allocate(byteCount: byteCount, alignment: 64)
            }
            shape = (frame.width, frame.height, frame.layout, colorimetry)
            let start = ContinuousClock.now
            try converter!.convert(frame, to: output, into: rgb)
            timer.record(seconds: start.duration(to: .now).inSeconds, timestamp: timestamp)
        }
        timer.endProgress()
        guard let shape, let times = timer.summary() else {
            throw CommandFailure(
                "\(source): no frame was timed: the first \(warmUp) only warm the caches, and it ended after \(timer.count); give a longer source",
                status: 65)
        }
        let megapixelsPerSecond = Double(shape.width * shape.height) / times.median / 1e6
        let interval = isCamera ? timer.intervalMedian() : nil
        let kernelName = (kernel ?? .best).rawValue
        switch format {
        case .json:
            var fields: [(String, String)] = [
                ("width", "\(shape.width)"), ("height", "\(shape.height)"), ("layout", JSONText.string(shape.layout.rawValue)),
                ("output", JSONText.string(output.rawValue)), ("threads", "\(threads)"), ("frames", "\(timer.timed)"),
                ("min_ms", milliseconds(times.min)), ("median_ms", milliseconds(times.median)),
                ("p99_ms", milliseconds(times.p99)), ("max_ms", milliseconds(times.max)),
                ("mpix_per_s", DecimalText.fixed(megapixelsPerSecond, 1)), ("kernel", JSONText.string(kernelName)),
            ]
            if let interval { fields += [("interval_median_ms", milliseconds(interval)), ("fps", DecimalText.fixed(1 / interval, 2))] }
            print(JSONText.object(fields))
        case .text:
            print(
                "\(shape.width)x\(shape.height) \(shape.layout.rawValue) -> \(output.rawValue), \(shape.colorimetry), "
                    + "\(kernelName) kernel, \(threads) thread\(threads == 1 ? "" : "s"), \(timer.timed) frames timed")
            print(
                "per frame: min \(milliseconds(times.min)) ms, median \(milliseconds(times.median)) ms, "
                    + "p99 \(milliseconds(times.p99)) ms, max \(milliseconds(times.max)) ms")
            print("throughput: \(DecimalText.fixed(megapixelsPerSecond, 1)) megapixels/s at the median")
            if let interval {
                print("camera: a frame every \(milliseconds(interval)) ms (median), \(DecimalText.fixed(1 / interval, 2)) fps")
            }
        }
    }

    /// Milliseconds to 5 significant digits: a fixed number of decimals would round a small
    /// frame's time (0.004 ms at 320x240 on two threads) to one or two digits, and a rate worked
    /// out from it would be percents off.
    private func milliseconds(_ seconds: Double) -> String { DecimalText.significant(seconds * 1000, 5) }
}

/// Per-frame times and arrival stamps, stored in arrays sized once; progress on a terminal.
struct FrameTimer {
    let frames: Int
    let warmUp: Int
    let showProgress: Bool
    private(set) var count = 0
    private var times: [Double]
    private var stamps: [Double]
    private var lastProgress = ContinuousClock.now

    init(frames: Int, warmUp: Int, showProgress: Bool) {
        self.frames = frames
        self.warmUp = warmUp
        self.showProgress = showProgress
        times = []
        times.reserveCapacity(frames)
        stamps = []
        stamps.reserveCapacity(frames)
    }

    var timed: Int { times.count }

    mutating func record(seconds: Double, timestamp: Double) {
        count += 1
        guard count > warmUp else { return }
        times.append(seconds)
        stamps.append(timestamp)
        if showProgress, count == warmUp + frames || lastProgress.duration(to: .now) > .milliseconds(250) {
            lastProgress = .now
            StandardError.write("\r\(times.count)/\(frames) frames timed")
        }
    }

    /// Ends the progress line, so what follows starts on a line of its own.
    func endProgress() {
        if showProgress, count > warmUp { StandardError.writeLine("") }
    }

    /// Min, median, 99th percentile (nearest rank) and max, in seconds; nil before any frame.
    func summary() -> (min: Double, median: Double, p99: Double, max: Double)? {
        guard !times.isEmpty else { return nil }
        let sorted = times.sorted()
        return (sorted[0], Self.percentile(sorted, 50), Self.percentile(sorted, 99), sorted[sorted.count - 1])
    }

    /// The median time between the stamps of consecutive frames; nil with fewer than two.
    func intervalMedian() -> Double? {
        guard stamps.count > 1 else { return nil }
        let intervals = zip(stamps.dropFirst(), stamps).map { $0 - $1 }.sorted()
        return Self.percentile(intervals, 50)
    }

    /// The nearest-rank percentile of sorted values.
    static func percentile(_ sorted: [Double], _ percent: Int) -> Double {
        sorted[max(0, (sorted.count * percent + 99) / 100 - 1)]
    }
}
