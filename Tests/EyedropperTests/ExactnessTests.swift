import Eyedropper
import EyedropperTestSupport
import Testing

@Suite(.serialized, .oneHeavySuiteAtATime) struct ExactnessTests {
    /// What one colorimetry's sweep found.
    struct Sweep: Sendable {
        /// Kernels whose bytes differ from the scalar kernel's.
        var differing: [ConversionKernel] = []
        /// Distinct triples the frame held, and whether all were on the sweep's grid.
        var swept = 0
        var onGrid = false
        /// Of (output - exact) over every channel, offset by 255.
        var histogram = [Int](repeating: 0, count: 511)
        var worst = (error: 0, sample: YCbCr8(y: 0, cb: 0, cr: 0))
    }

    /// Each channel of every one of the 2^24 inputs is within one level of the exact formula, for
    /// every matrix and range; every kernel on this CPU gives the scalar kernel's bytes. Prints the
    /// error histogram. (A 256th of the inputs in a debug build: `ExhaustiveSweep`.)
    @Test(arguments: Colorimetry.all)
    func everyInputWithinOneLevelOfExact(colorimetry: Colorimetry) async throws {
        let sweep = try await ExhaustiveSweep.run { try Self.sweep(colorimetry) }
        #expect(sweep.differing.isEmpty, "\(sweep.differing) differ from scalar for \(colorimetry)")
        #expect(
            sweep.swept == ExhaustiveSweep.count && sweep.onGrid,
            "the frame must hold every triple of the sweep once: \(sweep.swept) of \(ExhaustiveSweep.count)")
        let counts = sweep.histogram.enumerated().filter { $0.element > 0 }.map { "\($0.offset - 255): \($0.element)" }
        let exactShare = (Double(sweep.histogram[255]) / Double(3 * ExhaustiveSweep.count) * 10000).rounded() / 100
        print(
            "\(colorimetry) (\(ExhaustiveSweep.scope)): error histogram (levels: channels) \(counts.joined(separator: ", ")); \(exactShare)% exact"
        )
        #expect(abs(sweep.worst.error) <= 1, "\(colorimetry): \(sweep.worst.sample) is \(sweep.worst.error) levels off")
    }

    /// Every kernel on the sweep's frame, and the scalar kernel's output against the exact formula.
    static func sweep(_ colorimetry: Colorimetry) throws -> Sweep {
        var sweep = Sweep()
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
        sweep.differing = outputs.filter { $0.key != .scalar && $0.value != scalar }.map(\.key)
        // Said, not passed in silence (KernelEquivalenceTests reports them as skipped tests).
        let notRun = ConversionKernel.allCases.filter { !$0.isSupported }.map(\.rawValue)
        if !notRun.isEmpty {
            print("\(colorimetry): skipped on this CPU, which cannot run them: \(notRun.joined(separator: ", ")) kernels")
        }

        // Histogram of (output - exact) over every channel, and the inputs seen.
        var seen = [Bool](repeating: false, count: 1 << 24)
        allTriples.withFrame { frame in
            for y in 0..<side {
                for x in 0..<side {
                    let sample = frame.sample(x: x, y: y)
                    seen[Int(sample.y) << 16 | Int(sample.cb) << 8 | Int(sample.cr)] = true
                    let exact = colorimetry.exactRGB(sample)
                    let offset = (y * side + x) * 3
                    func count(_ channel: Int, _ reference: UInt8) {
                        let error = Int(scalar[offset + channel]) - Int(reference)
                        sweep.histogram[error + 255] += 1
                        if abs(error) > abs(sweep.worst.error) { sweep.worst = (error, sample) }
                    }
                    count(0, exact.r)
                    count(1, exact.g)
                    count(2, exact.b)
                }
            }
        }
        let step = ExhaustiveSweep.chromaStep
        sweep.onGrid = true
        for index in seen.indices where seen[index] {
            sweep.swept += 1
            if ((index >> 8) & 0xFF) % step != 0 || (index & 0xFF) % step != 0 { sweep.onGrid = false }
        }
        return sweep
    }
}
