// Frames to JPEG (quality 90, 4:2:0, accurate DCT) the way `eyedropper snapshot --subsampling 420` makes them,
// beside libturbojpeg called directly on the same RGB and straight from the YCbCr planes.
//
// Rows read "JPEG_<width>x<height>_<content>_<implementation>" (no spaces or slashes:
// package-benchmark 1.38 looks thresholds up by the raw name, ordo-one/benchmark#301):
//   eyedropper               the whole snapshot path: ColorSampler.withRGB24 converts the I420
//                            frame into the sampler's reused buffer, JPEGEncoder.withJPEG compresses it
//   eyedropper-convert       that conversion alone
//   eyedropper-encode        JPEGEncoder.withJPEG alone, on the frame already converted
//   tjCompress2              libturbojpeg on the same RGB bytes, with JPEGEncoder's flags, its own
//                            handle and an output buffer made once (checked in setup to write the
//                            very same JPEG bytes as Eyedropper)
//   tjCompressFromYUVPlanes  libturbojpeg from the I420 planes, no RGB at all: the floor for a
//                            JPEG of a camera frame. It reads the planes as JPEG's full-range BT.601
//                            YCbCr, so its colours are off for these BT.709 limited-range frames:
//                            it is here for its time only.
//   eyedropper-planes        the whole snapshot path for 4:2:0 now: JPEGEncoder.withJPEG(frame)
//                            remaps the planes into JPEG's BT.601 full range (JPEGPlaneBuffer) and
//                            compresses them with tjCompressFromYUVPlanes: right colours, no RGB
//   eyedropper-remap         that remap alone: also what `serve`'s capture thread adds per frame to
//                            keep each frame's JPEG planes beside its RGB
//   glued                    the job as people glue it in C today: libyuv's conversion for the
//                            frame's colorimetry (H420ToRAW for BT.709 limited) into a buffer made
//                            once, then tjCompress2 (TurboJPEG below) on it
// The targets (compare.sh prints them): eyedropper within 1.1x of tjCompress2 + eyedropper-convert;
// eyedropper-planes at most 0.8x glued.
//
// JPEG time depends on the picture, so each size runs three contents (FrameContent): the test
// pattern (flat, easy), the pattern with sensor-like noise (nearer a camera) and random bytes
// (the worst case). Each fixture compresses once in setup, so buffers exist before measuring.

import Benchmark
import BenchmarkSupport
import CLibYUV
import CTurboJPEGBench
import Eyedropper
import EyedropperJPEG

let benchmarks: @Sendable () -> Void = {
    // A 1080p JPEG takes milliseconds: a second holds a hundred or more of them.
    Benchmark.defaultConfiguration = .suite()

    for (width, height) in [(1280, 720), (1920, 1080)] {
        for content in [FrameContent.pattern, .noisyPattern, .random] {
            let row = Row(width: width, height: height, content: content)
            row.benchmark("eyedropper") { fixture in
                try fixture.frame.withFrame { frame in
                    try fixture.sampler.withRGB24(frame) { image in
                        try fixture.encoder.withJPEG(rgb24: image.bytes, width: image.width, height: image.height) {
                            blackHole($0.count)
                        }
                    }
                }
            }
            row.benchmark("eyedropper-convert") { fixture in
                try fixture.frame.withFrame { frame in
                    try fixture.sampler.withRGB24(frame) { blackHole($0.bytes.baseAddress) }
                }
            }
            row.benchmark("eyedropper-encode") { fixture in
                try fixture.encoder.withJPEG(rgb24: UnsafeRawBufferPointer(fixture.rgb), width: width, height: height) {
                    blackHole($0.count)
                }
            }
            row.benchmark("tjCompress2") { fixture in
                fixture.turbo.compress(rgb24: fixture.rgb, width: width, height: height)
                blackHole(fixture.turbo.size)
            }
            row.benchmark("tjCompressFromYUVPlanes") { fixture in
                fixture.turbo.compress(planes: fixture.frame)
                blackHole(fixture.turbo.size)
            }
            row.benchmark("eyedropper-planes") { fixture in
                try fixture.frame.withFrame { frame in
                    try fixture.encoder.withJPEG(frame) { blackHole($0.count) }
                }
            }
            row.benchmark("eyedropper-remap") { fixture in
                fixture.frame.withFrame { fixture.planes.remap($0) }
                blackHole(fixture.planes)
            }
            row.benchmark("glued") { fixture in
                fixture.glued.convert(fixture.frame)
                fixture.turbo.compress(rgb24: fixture.glued.rgb, width: width, height: height)
                blackHole(fixture.turbo.size)
            }
        }
    }
}

// MARK: - Rows

struct Row {
    let width: Int
    let height: Int
    let content: FrameContent

    func benchmark(_ implementation: String, _ body: @escaping (JPEGFixture) throws -> Void) {
        let name = ["JPEG", "\(width)x\(height)", content.rawValue, implementation].joined(separator: "_")
        Benchmark(name) { (_: Benchmark, fixture: JPEGFixture) throws in
            try body(fixture)
        } setup: {
            let fixture = JPEGFixture(width: width, height: height, content: content)
            do {
                try body(fixture)  // grows the sampler's and the encoder's buffers before measuring
            } catch {
                fatalError("\(name) failed in setup: \(error)")
            }
            return fixture
        }
    }
}

// MARK: - Fixture

/// A frame, its RGB24 conversion made once, Eyedropper's sampler and encoder, and libturbojpeg.
final class JPEGFixture {
    static let quality = 90
    let frame: FrameBuffer
    let sampler: ColorSampler
    let encoder: JPEGEncoder
    /// The frame converted once, for the rows that time compression alone.
    let rgb: UnsafeMutableRawBufferPointer
    let turbo: TurboJPEG
    /// For the remap row.
    let planes = JPEGPlaneBuffer()
    /// libyuv's half of the glued job.
    let glued: LibYUVToRGB

    init(width: Int, height: Int, content: FrameContent) {
        frame = content.makeFrame(width: width, height: height)
        sampler = ColorSampler(colorimetry: frame.colorimetry)
        rgb = .allocate(byteCount: width * height * 3, alignment: 64)
        turbo = TurboJPEG(width: width, height: height, quality: Self.quality)
        glued = LibYUVToRGB(width: width, height: height, colorimetry: frame.colorimetry)
        do {
            encoder = try JPEGEncoder(quality: Self.quality)
            try frame.withFrame { frame in
                try YCbCrConverter(colorimetry: frame.colorimetry).convert(frame, to: .rgb24, into: rgb)
            }
            // The peer row must do the same work: same RGB in, same flags, so the same bytes out.
            let ours = try encoder.withJPEG(rgb24: UnsafeRawBufferPointer(rgb), width: width, height: height) { Array($0) }
            turbo.compress(rgb24: rgb, width: width, height: height)
            if ours != Array(turbo.jpeg) {
                fatalError("tjCompress2 wrote \(turbo.size) bytes, JPEGEncoder \(ours.count): not the same JPEG")
            }
        } catch {
            fatalError("cannot set up a \(width)x\(height) \(content.rawValue) JPEG: \(error)")
        }
    }

    deinit { rgb.deallocate() }
}

/// libyuv's I420 -> RGB24 (bytes R, G, B: libyuv's RAW) for a colorimetry, into a buffer made once.
final class LibYUVToRGB {
    typealias Function =
        @convention(c) (
            UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32,
            UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32
        ) -> Int32
    let rgb: UnsafeMutableRawBufferPointer
    let function: Function

    init(width: Int, height: Int, colorimetry: Colorimetry) {
        rgb = .allocate(byteCount: width * height * 3, alignment: 64)
        function =
            switch colorimetry {
            case .bt601Limited: I420ToRAW
            case .bt709Limited: H420ToRAW
            case .bt601Full: J420ToRAW
            default: fatalError("libyuv has no I420 -> RAW function for \(colorimetry)")
            }
    }

    deinit { rgb.deallocate() }

    func convert(_ frame: FrameBuffer) {
        precondition(frame.layout == .i420)
        let (width, height) = (frame.width, frame.height), chromaWidth = (width + 1) / 2
        let status = frame.withUnsafeMutableBytes { bytes in
            let y = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            let u = y + width * height, v = u + chromaWidth * ((height + 1) / 2)
            return function(
                y, Int32(width), u, Int32(chromaWidth), v, Int32(chromaWidth),
                rgb.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width * 3), Int32(width), Int32(height))
        }
        if status != 0 { fatalError("libyuv failed: \(status)") }
    }
}

/// libturbojpeg called as JPEGEncoder calls it: one handle, an output buffer of tjBufSize bytes
/// made once (TJFLAG_NOREALLOC), 4:2:0, accurate DCT.
final class TurboJPEG {
    static let flags = TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT
    static let subsampling = Int32(TJSAMP_420.rawValue)
    let quality: Int32
    let handle: tjhandle
    let output: UnsafeMutablePointer<UInt8>
    let capacity: Int
    /// The length of the last JPEG.
    private(set) var size = 0
    /// The Y, Cb and Cr plane addresses and strides, for tjCompressFromYUVPlanes: kept here so
    /// that a call allocates no array.
    private let planes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 3)
    private let strides = UnsafeMutablePointer<Int32>.allocate(capacity: 3)

    init(width: Int, height: Int, quality: Int) {
        guard let handle = tjInitCompress() else { fatalError("tjInitCompress: \(String(cString: tjGetErrorStr()))") }
        self.handle = handle
        self.quality = Int32(quality)
        capacity = Int(tjBufSize(Int32(width), Int32(height), Self.subsampling))
        output = tjAlloc(Int32(capacity))
    }

    deinit {
        tjFree(output)
        tjDestroy(handle)
        planes.deallocate()
        strides.deallocate()
    }

    var jpeg: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: output, count: size) }

    /// tjCompress2 on tightly packed RGB24.
    func compress(rgb24: UnsafeMutableRawBufferPointer, width: Int, height: Int) {
        var destination: UnsafeMutablePointer<UInt8>? = output
        var length = UInt(capacity)
        let status = tjCompress2(
            handle, rgb24.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(width * 3),
            Int32(height), Int32(TJPF_RGB.rawValue), &destination, &length, Self.subsampling, quality, Self.flags)
        finish(status, length)
    }

    /// tjCompressFromYUVPlanes on a tightly packed I420 frame.
    func compress(planes frame: FrameBuffer) {
        precondition(frame.layout == .i420, "tjCompressFromYUVPlanes takes I420 planes")
        let (width, height) = (frame.width, frame.height)
        var destination: UnsafeMutablePointer<UInt8>? = output
        var length = UInt(capacity)
        let status = frame.withUnsafeMutableBytes { bytes in
            let luma = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            let chroma = (width / 2) * (height / 2)
            planes[0] = luma
            planes[1] = luma + width * height
            planes[2] = luma + width * height + chroma
            strides[0] = Int32(width)
            strides[1] = Int32(width / 2)
            strides[2] = Int32(width / 2)
            return tjCompressFromYUVPlanes(
                handle, planes, Int32(width), strides, Int32(height), Self.subsampling,
                &destination, &length, quality, Self.flags)
        }
        finish(status, length)
    }

    private func finish(_ status: Int32, _ length: UInt) {
        // fatalError, not precondition: release builds drop precondition messages.
        if status != 0 { fatalError("libturbojpeg: \(String(cString: tjGetErrorStr2(handle)))") }
        size = Int(length)
    }
}
