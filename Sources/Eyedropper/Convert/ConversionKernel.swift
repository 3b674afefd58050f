import CEyedropperKernels

/// The row kernels one binary carries; the converter uses the best one this CPU supports.
public enum ConversionKernel: String, CaseIterable, Codable, Hashable, Sendable {
    /// One pixel at a time: the reference the others must match bit for bit.
    case scalar
    /// Swift SIMD, 8 pixels per step: SSE2 on any x86-64, NEON on arm64.
    case simd
    /// 32 pixels per step in 256-bit registers, on x86-64 CPUs with AVX2 (chosen at run time).
    case avx2

    /// Whether this CPU can run the kernel.
    public var isSupported: Bool {
        switch self {
        case .scalar, .simd: true
        case .avx2: Self.cpuHasAVX2
        }
    }

    /// The kernels this CPU can run, slowest first.
    public static var supported: [ConversionKernel] { allCases.filter(\.isSupported) }

    /// The fastest kernel this CPU can run.
    public static let best: ConversionKernel = cpuHasAVX2 ? .avx2 : .simd

    private static let cpuHasAVX2: Bool = {
        #if arch(x86_64)
        ed_cpu_has_avx2() != 0
        #else
        false
        #endif
    }()
}
