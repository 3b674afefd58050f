import Eyedropper
import EyedropperTestSupport
import Testing

@Suite struct ParallelConverterTests {
    /// Any number of threads writes the single-thread bytes, frame after frame through the same
    /// threads. Every size but the first is at or above the size that wakes the helpers, with odd
    /// widths and heights so the last chunk of rows is short; the first stays on one thread.
    @Test(arguments: [1, 2, 3, 7])
    func chunksMatchOneThread(threads: Int) throws {
        let parallel = ParallelConverter(converter: YCbCrConverter(colorimetry: .bt709Limited), threads: threads)
        let sizes = [(640, 480), (1024, 512), (725, 725), (4097, 129), (1920, 1082), (2048, 2047)]
        #expect(640 * 480 < ParallelConverter.minimumSharedPixels, "640x480 would wake the helpers")
        for (width, height) in sizes.dropFirst() {
            #expect(width * height >= ParallelConverter.minimumSharedPixels, "\(width)x\(height) would not wake the helpers")
        }
        for (width, height) in sizes {
            let source = GuardedFrame(
                layout: .nv12, width: width, height: height, padding: 3, placement: .flushEnd, seed: UInt64(width ^ height))
            let single = try convertGuarded(source, converter: parallel.converter, format: .rgba, padding: 0, placement: .flushEnd)
            let output = GuardedBuffer(count: width * height * 4, placement: .flushEnd)
            for round in 0..<3 {
                output.bytes.initializeMemory(as: UInt8.self, repeating: 0)
                try source.withFrame { frame in try parallel.convert(frame, to: .rgba, into: output.bytes) }
                #expect(Array(output.bytes) == single, "\(threads) threads, \(width)x\(height), frame \(round)")
            }
        }
    }
}
