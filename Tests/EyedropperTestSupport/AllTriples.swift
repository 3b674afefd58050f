import Dispatch
import Eyedropper

/// How much of the 2^24 (Y, Cb, Cr) inputs the exhaustive tests sweep: all of them in a release
/// build (what `Scripts/test` runs, seconds a colorimetry). A debug build runs the sweeps some 100
/// times slower (a minute a colorimetry for a sixteenth of them), so there they take every Y with
/// every 16th Cb and every 16th Cr: 2^16 inputs, a 256th, and say so.
public enum ExhaustiveSweep {
    #if DEBUG
        /// The step between the Cb values, and between the Cr values, swept.
        public static let chromaStep = 16
    #else
        /// The step between the Cb values, and between the Cr values, swept.
        public static let chromaStep = 1
    #endif

    /// The (Y, Cb, Cr) triples swept.
    public static var count: Int { (1 << 24) / (chromaStep * chromaStep) }

    /// Runs `body`, a sweep's seconds (release) to minutes (debug) of synchronous work, on a thread
    /// of Dispatch's and waits for it: on one of Swift concurrency's cooperative threads (as many as
    /// cores) it would hold up the async tests beside it, whose servers, streams and time limits
    /// need those threads, for as long.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// What the sweep covers, for the tests' output.
    public static var scope: String {
        chromaStep == 1
            ? "all 2^24 inputs"
            : "debug build: every Y with every \(chromaStep)th Cb and Cr, \(count) of the 2^24 inputs (a release build sweeps all)"
    }
}

/// Every (Y, Cb, Cr) triple of the sweep (`ExhaustiveSweep`), once: an I420 frame whose 8x8
/// blocks of chroma samples each hold one (Cb, Cr) pair, and whose 256 luma pixels under a block
/// take every Y value; 4096x4096 for all 2^24. For the exhaustive tests of the converter and of
/// the JPEG planes' remap.
public func makeAllTriples(colorimetry: Colorimetry) throws -> FrameBuffer {
    let step = ExhaustiveSweep.chromaStep
    let side = 4096 / step, chromaSide = side / 2
    let buffer = try FrameBuffer(layout: .i420, width: side, height: side, colorimetry: colorimetry)
    buffer.withUnsafeMutableBytes { bytes in
        let y = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let cb = y + side * side, cr = cb + chromaSide * chromaSide
        for cy in 0..<chromaSide {
            for cx in 0..<chromaSide {
                cb[cy * chromaSide + cx] = UInt8(cy / 8 * step)
                cr[cy * chromaSide + cx] = UInt8(cx / 8 * step)
                let block = (cy % 8) * 8 + cx % 8
                for dy in 0..<2 {
                    for dx in 0..<2 { y[(2 * cy + dy) * side + 2 * cx + dx] = UInt8(block * 4 + dy * 2 + dx) }
                }
            }
        }
    }
    return buffer
}
