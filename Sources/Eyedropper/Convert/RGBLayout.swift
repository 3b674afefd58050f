import CEyedropperKernels

/// How the converter packs RGB pixels in memory (`PixelLayout` is how YCbCr frames lie).
public enum RGBLayout: String, CaseIterable, Codable, Hashable, Sendable {
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

/// Writes converted pixels in one RGB layout; the kernels are generic over it so each layout
/// gets its own specialised loop with no per-pixel branch.
protocol PixelPacker {
    static var layout: RGBLayout { get }
    /// Stores one pixel.
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>)
    /// Stores 16 pixels.
    static func store(r: SIMD16<UInt8>, g: SIMD16<UInt8>, b: SIMD16<UInt8>, to pixels: UnsafeMutableRawPointer)
}

enum RGB24Packer: PixelPacker {
    static var layout: RGBLayout { .rgb24 }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        pixel[0] = r
        pixel[1] = g
        pixel[2] = b
    }

    @inline(__always)
    static func store(r: SIMD16<UInt8>, g: SIMD16<UInt8>, b: SIMD16<UInt8>, to pixels: UnsafeMutableRawPointer) {
        // Pixels as 32-bit words with a zero fourth byte; two per 64-bit lane, squeezed to 6 bytes.
        let words = packedWords(r, g, b, SIMD16<UInt8>(repeating: 0))
        let low24 = SIMD2<UInt64>(repeating: 0xFF_FFFF), next24 = SIMD2<UInt64>(repeating: 0xFFFF_FF00_0000)
        @inline(__always) func store(_ quad: SIMD8<UInt16>, _ index: Int) {
            let lanes: SIMD2<UInt64> = Vector.cast(quad)
            let six = (lanes & low24) | ((lanes &>> 8) & next24)
            let offset = 12 * index
            // Each 8-byte store carries 6 bytes of pixels and 2 the next store overwrites; the
            // very last is split so nothing past the 48th byte is written.
            pixels.storeBytes(of: six[0], toByteOffset: offset, as: UInt64.self)
            if index < 3 {
                pixels.storeBytes(of: six[1], toByteOffset: offset + 6, as: UInt64.self)
            } else {
                pixels.storeBytes(of: UInt32(truncatingIfNeeded: six[1]), toByteOffset: offset + 6, as: UInt32.self)
                pixels.storeBytes(of: UInt16(truncatingIfNeeded: six[1] &>> 32), toByteOffset: offset + 10, as: UInt16.self)
            }
        }
        store(words.0, 0)
        store(words.1, 1)
        store(words.2, 2)
        store(words.3, 3)
    }
}

enum RGBAPacker: PixelPacker {
    static var layout: RGBLayout { .rgba }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        pixel[0] = r
        pixel[1] = g
        pixel[2] = b
        pixel[3] = 255
    }

    @inline(__always)
    static func store(r: SIMD16<UInt8>, g: SIMD16<UInt8>, b: SIMD16<UInt8>, to pixels: UnsafeMutableRawPointer) {
        let words = packedWords(r, g, b, SIMD16<UInt8>(repeating: 255))
        pixels.storeBytes(of: words.0, toByteOffset: 0, as: SIMD8<UInt16>.self)
        pixels.storeBytes(of: words.1, toByteOffset: 16, as: SIMD8<UInt16>.self)
        pixels.storeBytes(of: words.2, toByteOffset: 32, as: SIMD8<UInt16>.self)
        pixels.storeBytes(of: words.3, toByteOffset: 48, as: SIMD8<UInt16>.self)
    }
}

enum BGRAPacker: PixelPacker {
    static var layout: RGBLayout { .bgra }

    @inline(__always)
    static func store(r: UInt8, g: UInt8, b: UInt8, to pixel: UnsafeMutablePointer<UInt8>) {
        RGBAPacker.store(r: b, g: g, b: r, to: pixel)
    }

    @inline(__always)
    static func store(r: SIMD16<UInt8>, g: SIMD16<UInt8>, b: SIMD16<UInt8>, to pixels: UnsafeMutableRawPointer) {
        RGBAPacker.store(r: b, g: g, b: r, to: pixels)
    }
}

/// 16 pixels as little-endian 32-bit words `first | second << 8 | third << 16 | fourth << 24`,
/// four pixels per vector, in pixel order.
@inline(__always)
private func packedWords(
    _ first: SIMD16<UInt8>, _ second: SIMD16<UInt8>, _ third: SIMD16<UInt8>, _ fourth: SIMD16<UInt8>
) -> (SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>, SIMD8<UInt16>) {
    let (lowPairs, highPairs) = Vector.zip(first, second)
    let (lowRest, highRest) = Vector.zip(third, fourth)
    let (w0, w1) = Vector.zip(Vector.cast(lowPairs) as SIMD8<UInt16>, Vector.cast(lowRest))
    let (w2, w3) = Vector.zip(Vector.cast(highPairs) as SIMD8<UInt16>, Vector.cast(highRest))
    return (w0, w1, w2, w3)
}
