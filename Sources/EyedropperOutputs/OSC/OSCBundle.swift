import Eyedropper
import EyedropperCalibration
import EyedropperPipeline

/// The OSC 1.0 bundles of one reading, written into one buffer that is kept from frame to frame:
/// once it exists, encoding a frame allocates nothing.
///
/// Per point i (from 0), in this order: `/eyedropper/<i>/rgb` with three float32 (the patch's
/// mean / 255), `/eyedropper/<i>/hex` with a string (`#rrggbb`, the rounded mean, as the JSON's
/// `hex`) and, with a profile, `/eyedropper/<i>/lab` with three float32 (L*, a*, b*, D50). All of
/// them, and with a palette `/eyedropper/<i>/name ,sff` (the name or `unknown`, its CIEDE2000,
/// and the margin to the next answer; NaN for none), in one bundle time-tagged with the frame's time, as long as they fit in `limit` bytes;
/// beyond that the points go on in further bundles with the same time tag, each holding whole
/// points (a receiver never gets one point's rgb without its hex). With a white reference, the
/// first bundle begins with `/eyedropper/reference ,ffffi`: its gains r, g, b, the light's drift
/// (its CIEDE2000 since calibration; NaN for a black patch) and 1 when the frame was corrected by
/// it, else 0.
package struct OSCBundle {
    /// The largest UDP payload over IPv4 (65,535 less the IP and UDP headers): larger cannot be
    /// sent as one datagram at all.
    package static let maximumDatagram = 65_507

    /// The largest bundle written; a frame whose points do not fit is split.
    package let limit: Int
    /// `limit` bytes, of which the first `count` are the bundle last written.
    private var storage: [UInt8]
    /// The length of the bundle last written.
    package private(set) var count = 0

    /// A writer of bundles of at most `limit` bytes (at least `smallestLimit`, so that a point
    /// always fits).
    package init(limit: Int = maximumDatagram) {
        precondition(limit >= Self.smallestLimit, "an OSC bundle of \(limit) bytes cannot hold one point")
        self.limit = limit
        storage = [UInt8](repeating: 0, count: limit)
    }

    /// The bundle header, the reference's message and the largest point there can be (an index
    /// of 19 digits, with lab).
    /// A point named from a palette needs up to `nameSize(longestAddress + 2, Palette.maximumNameUTF8)`
    /// more: 312 bytes, which the datagram's limit holds many times over.
    package static let smallestLimit = header + referenceSize + 3 * (4 + padded(longestAddress + 1) + 8 + 12)

    /// `/eyedropper/reference ,ffffi`: size, address, type tags, four float32 and an int32.
    package static let referenceSize = 4 + padded(21 + 1) + padded(6 + 1) + 16 + 4

    /// `#bundle\0` and the time tag.
    private static let header = 16
    /// `/eyedropper/` + the largest Int + `/rgb`.
    private static let longestAddress = 12 + 19 + 4

    /// Writes the bundle of points `first`... of `reading`, as many whole points as fit in
    /// `limit`, time-tagged `OSCTimeTag(reading.time)`. Returns the first point left out:
    /// `reading.samples.count` when the rest all fit. With no points, writes an empty bundle.
    package mutating func write(_ reading: Reading, from first: Int) -> Int {
        let samples = reading.samples, calibrated = reading.calibrated
        let tag = OSCTimeTag(seconds: reading.time).bits
        let limit = self.limit
        var next = first
        count = storage.withUnsafeMutableBytes { bytes in
            var out = Cursor(bytes: bytes)
            out.literal("#bundle")
            out.word(UInt32(truncatingIfNeeded: tag >> 32))
            out.word(UInt32(truncatingIfNeeded: tag))
            if next == 0, let reference = reading.reference { out.referenceMessage(reference) }
            let palette = reading.palette?.palette
            while next < samples.count {
                let lab = next < calibrated.count
                let name = next < reading.names.count ? reading.names[next] : nil
                let nameBytes = name.map { name in name.entry.map { palette?.utf8Count($0) ?? 0 } ?? 7 }
                guard out.offset + Self.pointSize(next, lab: lab, name: nameBytes) <= limit else { break }
                let sample = samples[next]
                let mean = sample.statistics.mean
                out.message(point: next, leaf: "rgb", floats: (mean.r / 255, mean.g / 255, mean.b / 255))
                out.hexMessage(point: next, color: sample.color)
                if lab {
                    let color = calibrated[next].color.lab
                    out.message(point: next, leaf: "lab", floats: (color.l, color.a, color.b))
                }
                if let name, let palette { out.nameMessage(point: next, name: name, palette: palette) }
                next += 1
            }
            return out.offset
        }
        return next
    }

    /// The bundle last written.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// The bundle last written, copied (for tests).
    package var bytes: [UInt8] { Array(storage[..<count]) }

    /// The bytes of point `index`'s elements, each with its int32 size.
    /// `name`: the UTF-8 length of the point's name, when a palette names it.
    package static func pointSize(_ index: Int, lab: Bool, name: Int? = nil) -> Int {
        let address = padded(12 + digits(index) + 4 + 1)
        let floats = 4 + address + 8 + 12  // size, address, ",fff" padded, three floats
        let hex = 4 + address + 4 + 8  // size, address, ",s" padded, "#rrggbb" padded
        return floats + hex + (lab ? floats : 0) + (name.map { nameSize(12 + digits(index) + 5 + 1, $0) } ?? 0)
    }

    /// `/eyedropper/<i>/name ,sff`: size, an address of `address` bytes with its NUL, type tags,
    /// the name of `name` bytes with its NUL, two floats.
    static func nameSize(_ address: Int, _ name: Int) -> Int {
        4 + padded(address) + padded(4 + 1) + padded(name + 1) + 8
    }

    /// `length` rounded up to a multiple of 4, as OSC pads strings.
    static func padded(_ length: Int) -> Int { (length + 3) & ~3 }

    /// How many decimal digits `value` (0 or more) has.
    static func digits(_ value: Int) -> Int {
        var (count, rest) = (1, value)
        while rest >= 10 { (count, rest) = (count + 1, rest / 10) }
        return count
    }
}

/// Writes OSC's big-endian words and NUL-padded strings into a buffer the caller has checked is
/// large enough (`OSCBundle.pointSize`).
private struct Cursor {
    let bytes: UnsafeMutableRawBufferPointer
    var offset = 0

    init(bytes: UnsafeMutableRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func byte(_ value: UInt8) {
        bytes[offset] = value
        offset += 1
    }

    mutating func word(_ value: UInt32) {
        bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
        offset += 4
    }

    /// A NUL and then NULs up to the next multiple of 4: the end of every OSC string.
    mutating func terminate() {
        repeat { byte(0) } while offset & 3 != 0
    }

    /// `text`'s bytes, without a NUL (a StaticString: no String made per frame).
    mutating func ascii(_ text: StaticString) {
        text.withUTF8Buffer { for value in $0 { byte(value) } }
    }

    /// `text` as an OSC string: its bytes, a NUL, padding.
    mutating func literal(_ text: StaticString) {
        ascii(text)
        terminate()
    }

    /// `value` in decimal.
    mutating func decimal(_ value: Int) {
        var rest = value
        offset += OSCBundle.digits(value)
        var at = offset
        repeat {
            at -= 1
            bytes[at] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
    }

    /// `/eyedropper/<point>/<leaf>`, terminated.
    mutating func address(point: Int, leaf: StaticString) {
        ascii("/eyedropper/")
        decimal(point)
        byte(UInt8(ascii: "/"))
        ascii(leaf)
        terminate()
    }

    /// Reserves the element's int32 size, runs `body`, then fills the size in.
    mutating func element(_ body: (inout Cursor) -> Void) {
        let start = offset
        offset += 4
        body(&self)
        bytes.storeBytes(of: UInt32(offset - start - 4).bigEndian, toByteOffset: start, as: UInt32.self)
    }

    /// One message of three float32, each rounded from the Double.
    mutating func message(point: Int, leaf: StaticString, floats: (Double, Double, Double)) {
        element { out in
            out.address(point: point, leaf: leaf)
            out.literal(",fff")
            out.word(Float(floats.0).bitPattern)
            out.word(Float(floats.1).bitPattern)
            out.word(Float(floats.2).bitPattern)
        }
    }

    /// `/eyedropper/<point>/name ,sff`: the name (or `unknown`), its ΔE and the margin.
    mutating func nameMessage(point: Int, name: NamedColor, palette: Palette) {
        element { out in
            out.address(point: point, leaf: "name")
            out.literal(",sff")
            if let entry = name.entry {
                palette.withUTF8Name(entry) { for value in $0 { out.byte(value) } }
            } else {
                out.ascii("unknown")
            }
            out.terminate()
            out.word(Float(name.match.deltaE).bitPattern)
            out.word(Float(name.margin ?? .nan).bitPattern)
        }
    }

    /// `/eyedropper/reference ,ffffi`: the gains, the drift and whether it was applied.
    mutating func referenceMessage(_ reference: ReferenceReading) {
        element { out in
            out.literal("/eyedropper/reference")
            out.literal(",ffffi")
            out.word(Float(reference.gains.x).bitPattern)
            out.word(Float(reference.gains.y).bitPattern)
            out.word(Float(reference.gains.z).bitPattern)
            out.word(Float(reference.deltaE).bitPattern)
            out.word(reference.applied ? 1 : 0)
        }
    }

    /// `/eyedropper/<point>/hex` with `#rrggbb` (lower case, as `RGB8.hex`), written digit by
    /// digit rather than through `RGB8.hex`, which makes a String.
    mutating func hexMessage(point: Int, color: RGB8) {
        element { out in
            out.address(point: point, leaf: "hex")
            out.literal(",s")
            out.byte(UInt8(ascii: "#"))
            out.hexByte(color.r)
            out.hexByte(color.g)
            out.hexByte(color.b)
            out.terminate()
        }
    }

    /// Two lower-case hex digits (not a loop over `[r, g, b]`: an array per frame).
    private mutating func hexByte(_ value: UInt8) {
        byte(Self.hexDigit(value >> 4))
        byte(Self.hexDigit(value & 15))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
