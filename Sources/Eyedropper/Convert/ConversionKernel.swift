import CEyedropperKernels

/// The row kernels one binary carries; the converter uses the best one this CPU supports.
public enum ConversionKernel: String, CaseIterable, Codable, Hashable, Sendable {
    /// One pixel at a time: the reference the others must match bit for bit.
    case scalar
    /// Swift SIMD, `RowKernels.simdPixels` pixels per step: SSE2 on any x86-64, NEON on arm64.
    case simd
    /// 32 pixels per step in 256-bit registers, on x86-64 CPUs with AVX2 (chosen at run time).
    case avx2
    /// 64 pixels per step in 512-bit registers, on x86-64 CPUs with AVX-512 BW and VBMI.
    case avx512

    /// Whether this CPU can run the kernel.
    public var isSupported: Bool {
        switch self {
        case .scalar, .simd: true
        case .avx2: Self.cpu.avx2
        case .avx512: Self.cpu.avx512
        }
    }

    /// The kernels this CPU can run, slowest first.
    public static var supported: [ConversionKernel] { allCases.filter(\.isSupported) }

    /// The fastest kernel this CPU can run.
    public static let best: ConversionKernel = supported.last!

    /// Pixels per vector step: rows are converted in multiples of this, the rest by the scalar kernel.
    var vectorStep: Int? {
        switch self {
        case .scalar: nil
        case .simd: RowKernels.simdPixels
        // The AVX-512 kernel takes multiples of 32 too: it finishes an odd 32 with AVX2.
        case .avx2, .avx512: Int(ED_AVX2_PIXELS)
        }
    }

    private static let cpu: (avx2: Bool, avx512: Bool) = {
        #if arch(x86_64)
            let avx2 = ed_cpu_has_avx2() != 0
            // The AVX-512 kernel uses byte permutes (VBMI), which some AVX-512 CPUs (Skylake-X) lack.
            return (avx2, avx2 && ed_cpu_has_avx512bw() != 0 && ed_cpu_has_avx512vbmi() != 0)
        #else
            return (false, false)
        #endif
    }()
}

#if arch(x86_64)
    extension ConversionKernel {
        typealias PlanarRows =
            @convention(c) (
                UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?,
                UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, Int, UnsafePointer<ed_coefficients>?, ed_output, Int32
            ) -> Void
        typealias InterleavedRows =
            @convention(c) (
                UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, Int32,
                UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, Int, UnsafePointer<ed_coefficients>?, ed_output, Int32
            ) -> Void

        /// The C row-pair kernels, for the kernels written in C.
        var cRows: (planar: PlanarRows, interleaved: InterleavedRows)? {
            switch self {
            case .scalar, .simd: nil
            case .avx2: (ed_rows_planar_avx2, ed_rows_interleaved_avx2)
            case .avx512: (ed_rows_planar_avx512, ed_rows_interleaved_avx512)
            }
        }
    }
#endif
