// Eyedropper's YCbCr 4:2:0 -> RGB conversion against libyuv and against memcpy of the same bytes.
//
// Every row converts one whole frame per iteration; frames and outputs are made in each
// benchmark's setup, so the measured region holds the conversion call and nothing else.
// Row names read "<layout>-><format>_<width>x<height>[_BT.709]_<implementation>"; compare.sh
// groups on everything before the implementation. No spaces or slashes: package-benchmark 1.38
// writes threshold files with those replaced by "_" but looks them up by the raw name
// (ordo-one/benchmark#301), so any other name would make `thresholds check` find nothing.

import Benchmark
import BenchmarkSupport
import CLibYUV
import Eyedropper

let benchmarks: @Sendable () -> Void = {
    // One frame per iteration. A second is plenty: a 4K conversion runs hundreds of times in
    // it, a VGA one hits the iteration cap.
    Benchmark.defaultConfiguration = .suite()

    let sizes = [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]
    for (width, height) in sizes {
        for layout in [PixelLayout.i420, .nv12] {
            for format in [RGBLayout.rgba, .rgb24] {
                let shape = Shape(layout: layout, format: format, width: width, height: height)
                eyedropper(shape, colorimetry: .bt601Limited)
                eyedropperParallel(shape, threads: 2)
                for function in LibYUV.bt601(layout: layout, format: format) {
                    libyuv(shape, function)
                }
                memcpyLimit(shape)
            }
        }
    }

    // HD sources are BT.709; only the coefficients differ, so one size shows whether that matters.
    for format in [RGBLayout.rgba, .rgb24] {
        let shape = Shape(layout: .i420, format: format, width: 1920, height: 1080)
        eyedropper(shape, colorimetry: .bt709Limited, label: "BT.709")
        libyuv(shape, LibYUV.bt709(format: format), colorimetry: .bt709Limited, label: "BT.709")
    }

    // The other kernels this CPU runs, to show what machines without the best one get (the
    // portable kernels are all that non-x86 and pre-AVX2 machines have); the default rows use the best.
    let hd = Shape(layout: .i420, format: .rgba, width: 1920, height: 1080)
    for kernel in ConversionKernel.supported where kernel != .best {
        eyedropper(hd, colorimetry: .bt601Limited, kernel: kernel)
    }
}

// MARK: - Rows

/// What one row converts: a layout and size in, a packed format out.
struct Shape {
    let layout: PixelLayout
    let format: RGBLayout
    let width: Int
    let height: Int

    func name(_ implementation: String, label: String? = nil) -> String {
        let layoutName = layout.rawValue.uppercased()
        let formatName = format.rawValue.uppercased()
        return ["\(layoutName)->\(formatName)", "\(width)x\(height)", label, implementation]
            .compactMap { $0 }.joined(separator: "_")
    }
}

func eyedropper(
    _ shape: Shape, colorimetry: Colorimetry, kernel: ConversionKernel = .best, label: String? = nil
) {
    let implementation = kernel == .best ? "eyedropper" : "eyedropper-\(kernel.rawValue)-kernel"
    Benchmark(shape.name(implementation, label: label)) { (_: Benchmark, fixture: Fixture) throws in
        try fixture.frame.withFrame { frame in
            try fixture.converter.convert(frame, to: fixture.format, into: fixture.output)
        }
    } setup: {
        Fixture(shape, colorimetry: colorimetry, kernel: kernel)
    }
}

func eyedropperParallel(_ shape: Shape, threads: Int) {
    Benchmark(shape.name("eyedropper-\(threads)-threads")) { (_: Benchmark, fixture: ParallelFixture) throws in
        try fixture.frame.withFrame { frame in
            try fixture.parallel.convert(frame, to: fixture.format, into: fixture.output)
        }
    } setup: {
        // The worker threads start here, outside the measured region, and stop when the fixture goes.
        ParallelFixture(Fixture(shape, colorimetry: .bt601Limited), threads: threads)
    }
}

func libyuv(_ shape: Shape, _ function: LibYUV, colorimetry: Colorimetry = .bt601Limited, label: String? = nil) {
    Benchmark(shape.name("libyuv-\(function.name)", label: label)) { (_: Benchmark, fixture: Fixture) in
        let status = function.convert(fixture)
        precondition(status == 0, "\(function.name) failed: \(status)")
    } setup: {
        let fixture = Fixture(shape, colorimetry: colorimetry)
        function.checkAgainstEyedropper(fixture)
        return fixture
    }
}

/// The memory limit: read every byte of the frame and write every byte of the output, no arithmetic.
/// The frame is copied into the start of the output and the rest is filled, so bytes read and
/// written match the conversion's exactly (a copy of the rest would read more than it does).
func memcpyLimit(_ shape: Shape) {
    Benchmark(shape.name("memcpy")) { (_: Benchmark, fixture: Fixture) in
        let output = fixture.output
        fixture.frame.withUnsafeMutableBytes { source in
            output.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: source.count)
            UnsafeMutableRawBufferPointer(rebasing: output[source.count...])
                .initializeMemory(as: UInt8.self, repeating: 0xFF)
        }
        blackHole(output.baseAddress!)
    } setup: {
        Fixture(shape, colorimetry: .bt601Limited)
    }
}

// MARK: - Fixtures

/// A frame of seeded random bytes and a tightly packed output for it.
final class Fixture {
    let frame: FrameBuffer
    let format: RGBLayout
    let converter: YCbCrConverter
    let output: UnsafeMutableRawBufferPointer

    init(_ shape: Shape, colorimetry: Colorimetry, kernel: ConversionKernel = .best) {
        // Random samples, not a smooth pattern: no kernel can profit from repeated values, and
        // the fixed seed makes every run convert the same bytes.
        frame = FrameContent.random.makeFrame(
            layout: shape.layout, width: shape.width, height: shape.height, colorimetry: colorimetry)
        format = shape.format
        converter = YCbCrConverter(colorimetry: colorimetry, kernel: kernel)
        output = .allocate(byteCount: shape.width * shape.height * shape.format.bytesPerPixel, alignment: 64)
        // Touch every page now so the first measured iterations don't pay for page faults.
        output.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { output.deallocate() }

    var width: Int32 { Int32(frame.width) }
    var height: Int32 { Int32(frame.height) }
    var rowBytes: Int32 { Int32(frame.width * format.bytesPerPixel) }
    var destination: UnsafeMutablePointer<UInt8> { output.baseAddress!.assumingMemoryBound(to: UInt8.self) }

    /// Lends the tightly packed frame's planes to `body`: I420 is Y (stride w), Cb and Cr (stride
    /// w/2); NV12 is Y (stride w) and interleaved CbCr (stride w).
    func withPlanes<R>(_ body: (_ plane: (Int) -> (pointer: UnsafePointer<UInt8>, stride: Int32)) -> R) -> R {
        frame.withUnsafeMutableBytes { bytes in
            let base = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            return body { plane(base, $0) }
        }
    }

    private func plane(_ base: UnsafePointer<UInt8>, _ index: Int) -> (pointer: UnsafePointer<UInt8>, stride: Int32) {
        let width = frame.width, height = frame.height
        let lumaBytes = width * height
        switch (frame.layout, index) {
        case (_, 0): return (base, Int32(width))
        case (.nv12, 1): return (base + lumaBytes, Int32(width))
        case (.i420, 1): return (base + lumaBytes, Int32(width / 2))
        case (.i420, 2): return (base + lumaBytes + (width / 2) * (height / 2), Int32(width / 2))
        default: fatalError("no plane \(index) in \(frame.layout) for libyuv")
        }
    }
}

final class ParallelFixture {
    let fixture: Fixture
    let parallel: ParallelConverter

    init(_ fixture: Fixture, threads: Int) {
        self.fixture = fixture
        parallel = ParallelConverter(converter: fixture.converter, threads: threads)
    }

    var frame: FrameBuffer { fixture.frame }
    var format: RGBLayout { fixture.format }
    var output: UnsafeMutableRawBufferPointer { fixture.output }
}

// MARK: - libyuv

/// A libyuv conversion with Eyedropper's output byte order.
///
/// libyuv names formats as little-endian words: its "ABGR" is bytes R,G,B,A and "RAW" is bytes
/// R,G,B, which match Eyedropper's RGBA and RGB24; its "ARGB" (bytes B,G,R,A) is the format
/// libyuv is best known for and costs the same, so it runs beside the RGBA rows.
struct LibYUV {
    let name: String
    /// The bytes libyuv writes, in Eyedropper's terms.
    let order: RGBLayout
    /// The largest difference from Eyedropper that still means "the same conversion".
    var tolerance = 3
    let convert: (Fixture) -> Int32

    /// Stops the run unless libyuv and Eyedropper agree on this frame to within `tolerance` levels
    /// (their fixed-point rounding differs), so a swapped plane or a misread format name cannot
    /// make a peer's row look comparable when it computes something else.
    func checkAgainstEyedropper(_ fixture: Fixture) {
        let expected = UnsafeMutableRawBufferPointer.allocate(byteCount: fixture.output.count, alignment: 64)
        defer { expected.deallocate() }
        do {
            try fixture.frame.withFrame { frame in
                try fixture.converter.convert(frame, to: order, into: expected)
            }
        } catch {
            fatalError("Eyedropper cannot convert the check frame: \(error)")
        }
        let status = convert(fixture)
        if status != 0 { fatalError("\(name) failed: \(status)") }
        var worst = 0
        for index in 0..<expected.count {
            worst = max(worst, abs(Int(expected[index]) - Int(fixture.output[index])))
        }
        // fatalError, not precondition: release builds drop precondition messages.
        if worst > tolerance { fatalError("\(name) differs from Eyedropper by up to \(worst) levels") }
    }

    static func bt601(layout: PixelLayout, format: RGBLayout) -> [LibYUV] {
        switch (layout, format) {
        case (.i420, .rgba): [planar("I420ToABGR", .rgba, I420ToABGR), planar("I420ToARGB", .bgra, I420ToARGB)]
        case (.i420, .rgb24): [planar("I420ToRAW", .rgb24, I420ToRAW)]
        case (.nv12, .rgba): [semiPlanar("NV12ToABGR", .rgba, NV12ToABGR), semiPlanar("NV12ToARGB", .bgra, NV12ToARGB)]
        case (.nv12, .rgb24): [semiPlanar("NV12ToRAW", .rgb24, NV12ToRAW)]
        default: fatalError("no libyuv peer for \(layout) -> \(format)")
        }
    }

    /// libyuv's "H420" functions are I420 with BT.709 limited-range coefficients. libyuv keeps
    /// chroma factors as bytes in 1/64 units, and its Cb -> B byte is 128 (2.0) where BT.709 needs
    /// 2.112 (135), so strong blues come out up to 15 levels short on the random frame. A swapped
    /// plane or channel would be off by a hundred levels or more.
    static func bt709(format: RGBLayout) -> LibYUV {
        var function =
            switch format {
            case .rgba: planar("H420ToABGR", .rgba, H420ToABGR)
            case .rgb24: planar("H420ToRAW", .rgb24, H420ToRAW)
            case .bgra: planar("H420ToARGB", .bgra, H420ToARGB)
            }
        function.tolerance = 16
        return function
    }

    typealias Planar = (
        UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32,
        UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
    ) -> Int32
    typealias SemiPlanar = (
        UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32,
        UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
    ) -> Int32

    static func planar(_ name: String, _ order: RGBLayout, _ function: @escaping Planar) -> LibYUV {
        LibYUV(name: name, order: order) { fixture in
            fixture.withPlanes { plane in
                let (y, cb, cr) = (plane(0), plane(1), plane(2))
                return function(
                    y.pointer, y.stride, cb.pointer, cb.stride, cr.pointer, cr.stride,
                    fixture.destination, fixture.rowBytes, fixture.width, fixture.height)
            }
        }
    }

    static func semiPlanar(_ name: String, _ order: RGBLayout, _ function: @escaping SemiPlanar) -> LibYUV {
        LibYUV(name: name, order: order) { fixture in
            fixture.withPlanes { plane in
                let (y, cbcr) = (plane(0), plane(1))
                return function(
                    y.pointer, y.stride, cbcr.pointer, cbcr.stride,
                    fixture.destination, fixture.rowBytes, fixture.width, fixture.height)
            }
        }
    }
}
