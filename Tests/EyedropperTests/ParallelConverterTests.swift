import Eyedropper
import Testing

@Suite struct ParallelConverterTests {
    /// Any number of threads writes the single-thread bytes, for heights that split unevenly
    /// (frames below a megapixel per band run on fewer threads).
    @Test(arguments: [1, 2, 3, 7])
    func bandsMatchOneThread(threads: Int) throws {
        let parallel = ParallelConverter(converter: YCbCrConverter(colorimetry: .bt709Limited), threads: threads)
        for (width, height) in [(1, 1), (33, 5), (640, 480), (97, 13), (1920, 1082), (2048, 2047)] {
            let source = GuardedFrame(layout: .nv12, width: width, height: height, padding: 3, placement: .flushEnd, seed: 99)
            let single = try convertGuarded(source, converter: parallel.converter, format: .rgba, padding: 0, placement: .flushEnd)
            let output = GuardedBuffer(count: width * height * 4, placement: .flushEnd)
            // Several frames through the same threads.
            for _ in 0..<3 {
                output.bytes.initializeMemory(as: UInt8.self, repeating: 0)
                try source.withFrame { frame in try parallel.convert(frame, to: .rgba, into: output.bytes) }
                #expect(Array(output.bytes) == single, "\(threads) threads, \(width)x\(height)")
            }
        }
    }
}
