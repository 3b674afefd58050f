import Eyedropper
import EyedropperTestSupport
import Testing

@Suite(.serialized) struct ExactnessTests {
    /// Each channel of every one of the 2^24 inputs is within one level of the exact formula, for
    /// every matrix and range; every kernel on this CPU gives the scalar kernel's bytes. Prints the
    /// error histogram. (A sixteenth of the inputs in a debug build: `ExhaustiveSweep`.)
    @Test(arguments: Colorimetry.all)
    func everyInputWithinOneLevelOfExact(colorimetry: Colorimetry) throws {
        let allTriples = try makeAllTriples(colorimetry: .bt601Limited)
        let side = allTriples.width
        var outputs: [ConversionKernel: [UInt8]] = [:]
        for kernel in ConversionKernel.supported {
            var rgb = [UInt8](repeating: 0, count: side * side * 3)
            try allTriples.withFrame { frame in
                try rgb.withUnsafeMutableBytes {
                    try YCbCrConverter(colorimetry: colorimetry, kernel: kernel).convert(frame, to: .rgb24, into: $0)
                }
            }
            outputs[kernel] = rgb
        }
        let scalar = outputs[.scalar]!
        for (kernel, rgb) in outputs where kernel != .scalar {
            #expect(rgb == scalar, "\(kernel) differs from scalar for \(colorimetry)")
        }
        // Said, not passed in silence (KernelEquivalenceTests reports them as skipped tests).
        let notRun = ConversionKernel.allCases.filter { !$0.isSupported }.map(\.rawValue)
        if !notRun.isEmpty {
            print("\(colorimetry): skipped on this CPU, which cannot run them: \(notRun.joined(separator: ", ")) kernels")
        }

        // Histogram of (output - exact) over every channel, and the inputs seen.
        var histogram = [Int](repeating: 0, count: 511)
        var seen = [Bool](repeating: false, count: 1 << 24)
        var worst = (error: 0, sample: YCbCr8(y: 0, cb: 0, cr: 0))
        allTriples.withFrame { frame in
            for y in 0..<side {
                for x in 0..<side {
                    let sample = frame.sample(x: x, y: y)
                    seen[Int(sample.y) << 16 | Int(sample.cb) << 8 | Int(sample.cr)] = true
                    let exact = colorimetry.exactRGB(sample)
                    let offset = (y * side + x) * 3
                    func count(_ channel: Int, _ reference: UInt8) {
                        let error = Int(scalar[offset + channel]) - Int(reference)
                        histogram[error + 255] += 1
                        if abs(error) > abs(worst.error) { worst = (error, sample) }
                    }
                    count(0, exact.r)
                    count(1, exact.g)
                    count(2, exact.b)
                }
            }
        }
        let step = ExhaustiveSweep.chromaStep
        let swept = seen.indices.filter { seen[$0] }
        #expect(
            swept.count == ExhaustiveSweep.count && swept.allSatisfy { (($0 >> 8) & 0xFF) % step == 0 && ($0 & 0xFF) % step == 0 },
            "the frame must hold every triple of the sweep once: \(swept.count) of \(ExhaustiveSweep.count)")
        let counts = histogram.enumerated().filter { $0.element > 0 }.map { "\($0.offset - 255): \($0.element)" }
        let exactShare = (Double(histogram[255]) / Double(3 * ExhaustiveSweep.count) * 10000).rounded() / 100
        print(
            "\(colorimetry) (\(ExhaustiveSweep.scope)): error histogram (levels: channels) \(counts.joined(separator: ", ")); \(exactShare)% exact"
        )
        #expect(abs(worst.error) <= 1, "\(colorimetry): \(worst.sample) is \(worst.error) levels off")
    }
}
