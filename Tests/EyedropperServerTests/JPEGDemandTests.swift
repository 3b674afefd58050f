import Eyedropper
import EyedropperJPEG
import EyedropperServer
import EyedropperTestSupport
import Hummingbird
import Testing

/// serve remaps a frame's planes into JPEG's Y'CbCr only while someone watches as JPEG, and a
/// request after nobody watched still gets the newest picture: the next frame's planes when the
/// source is live, the newest frame's RGB when it has stopped.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct JPEGDemandTests {
    static let (width, height) = (320, 240)

    /// What a JPEG cache needs, as serve makes it: the store, its demand, the threads (stopped by
    /// the caller).
    static func parts() -> (ServedFrames, JPEGDemand, BlockingWork) {
        (ServedFrames(payload: { JPEGPlaneBuffer() }), JPEGDemand(), BlockingWork())
    }

    /// The test pattern published into `frames` as serve's capture thread does: converted to RGB,
    /// its planes kept as `demand` says.
    static func publish(_ pattern: FrameBuffer, number: Int, into frames: ServedFrames, _ demand: JPEGDemand) {
        pattern.withFrame { frame in
            frames.publish(byteCount: width * height * 3) { rgb, planes in
                do {
                    try YCbCrConverter(colorimetry: frame.colorimetry).convert(frame, to: .rgb24, into: rgb)
                } catch {
                    preconditionFailure("\(error)")
                }
                demand.keepPlanes(of: frame, in: planes)
                return FrameInfo(
                    number: number, timestamp: 0, width: width, height: height, colorimetry: frame.colorimetry)
            }
        }
    }

    /// Idle: no planes, and those of an earlier frame forgotten; wanted: remapped; `window` after
    /// the last want: idle again. Catches remapping every frame whether anyone watches or not,
    /// never remapping, and a slot that keeps an older frame's planes once nobody watches.
    @Test func planesAreKeptOnlyWhileWanted() async throws {
        let demand = JPEGDemand(window: .milliseconds(300))
        let pattern = try TestPattern(width: Self.width, height: Self.height).makeFrameBuffer()
        let planes = JPEGPlaneBuffer()
        #expect(!demand.isWanted)
        pattern.withFrame { demand.keepPlanes(of: $0, in: planes) }
        #expect(!planes.hasPlanes, "remapped with nobody watching")
        demand.want()
        #expect(demand.isWanted)
        pattern.withFrame { demand.keepPlanes(of: $0, in: planes) }
        #expect(planes.hasPlanes, "not remapped while wanted")
        try await Task.sleep(for: .milliseconds(600))
        #expect(!demand.isWanted, "still wanted twice the window after the last request")
        pattern.withFrame { demand.keepPlanes(of: $0, in: planes) }
        #expect(!planes.hasPlanes, "the older frame's planes kept for a frame nobody asked for")
    }

    /// After nobody watched, with frames still coming, the first JPEG is of a frame published after
    /// the request, compressed from its planes: the bytes the planes path makes. Catches compressing
    /// the idle frame's RGB, or not waiting for the next frame.
    @Test func aRequestAfterIdleWaitsForTheNextFramesPlanes() async throws {
        try await onServerThreads {
            let (frames, demand, work) = Self.parts()
            defer { work.stop() }
            let pattern = try TestPattern(width: Self.width, height: Self.height).makeFrameBuffer()
            let cache = try JPEGCache(frames: frames, demand: demand, quality: 90, pool: work)
            Self.publish(pattern, number: 0, into: frames, demand)
            // On the server tests' own threads, as a capture thread is: the cooperative pool may be
            // held by other suites for longer than the request waits for a frame.
            let capture = serverTask {
                let pattern = try TestPattern(width: Self.width, height: Self.height).makeFrameBuffer()
                for number in 1..<40 {
                    try await Task.sleep(for: .milliseconds(50))
                    Self.publish(pattern, number: number, into: frames, demand)
                }
            }
            defer { capture.cancel() }
            let jpeg = try await cache.newest()
            #expect(jpeg.number >= 1, "the idle frame \(jpeg.number) compressed, not the next frame's planes")
            let planesJPEG = try pattern.withFrame { frame in try JPEGEncoder(quality: 90).withJPEG(frame) { Array($0) } }
            let samePlanes = Array(buffer: jpeg.jpeg) == planesJPEG  // (not inside #expect: it would print every byte)
            #expect(samePlanes, "frame \(jpeg.number): not the planes path's bytes")
        }
    }

    /// A source that has stopped gives no next frame: the newest frame, which has no planes, is
    /// compressed from its RGB (libturbojpeg's own 4:2:0), in colour, after the wait. Catches a
    /// request that waits forever, fails, or compresses planes that are not there.
    @Test func aStoppedSourcesNewestFrameIsCompressedFromRGB() async throws {
        let (frames, demand, work) = Self.parts()
        defer { work.stop() }
        let pattern = try TestPattern(width: Self.width, height: Self.height).makeFrameBuffer()
        let cache = try JPEGCache(frames: frames, demand: demand, quality: 90, pool: work)
        Self.publish(pattern, number: 7, into: frames, demand)
        let jpeg = try await cache.newest()
        #expect(jpeg.number == 7)
        var rgb = [UInt8](repeating: 0, count: Self.width * Self.height * 3)
        try pattern.withFrame { frame in
            try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: frame.colorimetry).convert(frame, to: .rgb24, into: $0) }
        }
        let rgbJPEG = try rgb.withUnsafeBytes { bytes in
            try JPEGEncoder(quality: 90).withJPEG(rgb24: bytes, width: Self.width, height: Self.height) { Array($0) }
        }
        let sameRGB = Array(buffer: jpeg.jpeg) == rgbJPEG  // (not inside #expect: it would print every byte)
        #expect(sameRGB, "not the RGB path's bytes")
        let bars = try JPEGColourTests.exactBars(width: Self.width, height: Self.height, colorimetry: pattern.colorimetry)
        JPEGColourTests.expectBars(try JPEGDecoder.decode(Array(buffer: jpeg.jpeg)), bars, "from RGB")
    }
}
