import Eyedropper
import Testing

private struct Stop: Error, Equatable {}

/// Frame `index` is a flat grey of luma 16 + index % 220, so its samples say which frame it was.
private func fillGrey(_ buffer: FrameBuffer, index: Int) {
    buffer.withUnsafeMutableBytes { bytes in
        let luma = buffer.width * buffer.height
        bytes[..<luma].initializeMemory(as: UInt8.self, repeating: UInt8(16 + index % 220))
        bytes[luma...].initializeMemory(as: UInt8.self, repeating: 128)
    }
}

private func expectedGrey(_ index: Int) -> RGB8 {
    FixedPointCoefficients(.bt601Limited).convert(YCbCr8(y: UInt8(16 + index % 220), cb: 128, cr: 128))
}

@Suite struct SamplingPoolTests {
    /// Every frame is delivered once, in order, with its own colours, whatever order the workers
    /// finish in.
    @Test(arguments: [1, 3])
    func resultsArriveInFrameOrder(workers: Int) throws {
        let points = [SamplePoint.center, try SamplePoint(x: 0, y: 1)]
        let pool = try SamplingPool(workers: workers, points: points, radius: 1)
        var next = 0, delivered: [Int] = []
        try pool.run(
            layout: .nv12, width: 320, height: 240, colorimetry: .bt601Limited,
            fill: { buffer in
                guard next < 60 else { return false }
                fillGrey(buffer, index: next)
                next += 1
                return true
            },
            deliver: { frame, samples in
                delivered.append(frame)
                #expect(samples.map(\.color) == [expectedGrey(frame), expectedGrey(frame)], "frame \(frame)")
                #expect(samples.map(\.point) == points)
            })
        #expect(delivered == Array(0..<60))
    }

    @Test func aFillErrorEndsTheRunAfterTheFramesBeforeIt() throws {
        let pool = try SamplingPool(workers: 2, points: [.center])
        var next = 0, delivered: [Int] = []
        #expect(throws: Stop()) {
            try pool.run(
                layout: .i420, width: 64, height: 48, colorimetry: .bt601Limited,
                fill: { buffer in
                    if next == 5 { throw Stop() }
                    fillGrey(buffer, index: next)
                    next += 1
                    return true
                },
                deliver: { frame, samples in
                    delivered.append(frame)
                    #expect(samples.map(\.color) == [expectedGrey(frame)], "frame \(frame)")
                })
        }
        // The sixth fill needs a free slot and the pool has four (two per worker), so at least
        // frames 0 and 1 were delivered before it failed; the others may or may not have been,
        // but never out of order, and none after the failure.
        #expect(delivered.count >= 2 && delivered.count <= 5, "\(delivered)")
        #expect(delivered == Array(0..<delivered.count))
    }

    @Test func aDeliverErrorEndsTheRun() throws {
        let pool = try SamplingPool(workers: 2, points: [.center])
        var next = 0, delivered: [Int] = []
        #expect(throws: Stop()) {
            try pool.run(
                layout: .i420, width: 64, height: 48, colorimetry: .bt601Limited,
                fill: { buffer in
                    fillGrey(buffer, index: next)
                    next += 1
                    return true
                },
                deliver: { frame, _ in
                    delivered.append(frame)
                    if frame == 3 { throw Stop() }
                })
        }
        #expect(delivered == [0, 1, 2, 3])
    }

    @Test func badRadiusIsRefused() {
        #expect(throws: SamplingError.radiusOutOfRange(-2)) { try SamplingPool(workers: 2, points: [.center], radius: -2) }
    }
}
