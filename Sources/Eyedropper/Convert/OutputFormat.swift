import CEyedropperKernels

/// The packed RGB formats the converter writes.
public enum OutputFormat: String, CaseIterable, Codable, Hashable, Sendable {
    /// Bytes R, G, B.
    case rgb24
    /// Bytes R, G, B, 255.
    case rgba
    /// Bytes B, G, R, 255.
    case bgra

    public var bytesPerPixel: Int { self == .rgb24 ? 3 : 4 }

    var c: ed_output {
        switch self {
        case .rgb24: ED_OUTPUT_RGB24
        case .rgba: ED_OUTPUT_RGBA
        case .bgra: ED_OUTPUT_BGRA
        }
    }
}

/// Writes converted pixels in one output format; the kernels are generic over it so each format
/// gets its own specialised loop with no per-pixel branch.
protocol PixelPacker {
    static var format: OutputFormat { get }
    /// Stores one pixel.
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>)
    /// Stores 8 pixels whose channels are already saturated to 0...255.
    static func store(r: SIMD8<Int16>, g: SIMD8<Int16>, b: SIMD8<Int16>, to pixels: UnsafeMutableRawPointer)
}

enum RGB24Packer: PixelPacker {
    static var format: OutputFormat { .rgb24 }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        pixel[0] = r
        pixel[1] = g
        pixel[2] = b
    }

    @inline(__always)
    static func store(r: SIMD8<Int16>, g: SIMD8<Int16>, b: SIMD8<Int16>, to pixels: UnsafeMutableRawPointer) {
        // One 24-bit pixel per 32-bit lane, then two pixels (48 bits) per 64-bit lane.
        let words = packedWords(r: r, g: g, b: b, alpha: 0)
        let pairs = SIMD4<UInt64>(truncatingIfNeeded: words.evenHalf)
            | SIMD4<UInt64>(truncatingIfNeeded: words.oddHalf) &<< 24
        // Each 8-byte store writes 6 bytes of pixels and 2 that the next store overwrites; the last
        // pair is stored as 4 + 2 bytes so nothing past the 24th byte is touched.
        pixels.storeBytes(of: pairs[0], toByteOffset: 0, as: UInt64.self)
        pixels.storeBytes(of: pairs[1], toByteOffset: 6, as: UInt64.self)
        pixels.storeBytes(of: pairs[2], toByteOffset: 12, as: UInt64.self)
        pixels.storeBytes(of: UInt32(truncatingIfNeeded: pairs[3]), toByteOffset: 18, as: UInt32.self)
        pixels.storeBytes(of: UInt16(truncatingIfNeeded: pairs[3] &>> 32), toByteOffset: 22, as: UInt16.self)
    }
}

enum RGBAPacker: PixelPacker {
    static var format: OutputFormat { .rgba }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        pixel[0] = r
        pixel[1] = g
        pixel[2] = b
        pixel[3] = 255
    }

    @inline(__always)
    static func store(r: SIMD8<Int16>, g: SIMD8<Int16>, b: SIMD8<Int16>, to pixels: UnsafeMutableRawPointer) {
        pixels.storeBytes(of: packedWords(r: r, g: g, b: b, alpha: 255), as: SIMD8<UInt32>.self)
    }
}

enum BGRAPacker: PixelPacker {
    static var format: OutputFormat { .bgra }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        RGBAPacker.store(r: b, g: g, b: r, to: pixel)
    }

    @inline(__always)
    static func store(r: SIMD8<Int16>, g: SIMD8<Int16>, b: SIMD8<Int16>, to pixels: UnsafeMutableRawPointer) {
        RGBAPacker.store(r: b, g: g, b: r, to: pixels)
    }
}

/// Little-endian 32-bit words `first | second << 8 | third << 16 | alpha << 24`, one per pixel.
/// Built from 16-bit halves: at 8 lanes, widening 16 -> 32 bits is an unpack, not a library call.
@inline(__always)
private func packedWords(r: SIMD8<Int16>, g: SIMD8<Int16>, b: SIMD8<Int16>, alpha: UInt16) -> SIMD8<UInt32> {
    let low = SIMD8<UInt16>(truncatingIfNeeded: r) | SIMD8<UInt16>(truncatingIfNeeded: g) &<< 8
    let high = SIMD8<UInt16>(truncatingIfNeeded: b) | SIMD8<UInt16>(repeating: alpha &<< 8)
    return SIMD8<UInt32>(truncatingIfNeeded: low) | SIMD8<UInt32>(truncatingIfNeeded: high) &<< 16
}
