import Eyedropper
import EyedropperPipeline
import FuzzSupport

/// Two frames the parsed points are sampled on: one pixel, and an odd size with distinct pixels.
let frames: [(width: Int, height: Int, bytes: [UInt8])] = [(1, 1), (7, 5)].map { size in
    (size.0, size.1, (0..<(size.0 * size.1 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 37) })
}

/// The input as a request's query string, parsed as `eyedropper serve`'s endpoints parse it, and
/// what `/api/v1/sample` and `/api/v1/frame.jpg` then do with the values.
func fuzzQuery(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, count), as: UTF8.self)
    // /api/v1/status, /samples, /stream.mjpg: no parameters at all.
    if let query = try? QueryString(text, allowed: []) {
        invariant(query.items.isEmpty, "parameters \(query.items) accepted where none are")
    }
    // /api/v1/frame.jpg?quality=Q
    if let quality = try? QueryString(text, allowed: ["quality"]).integer("quality", in: 1...100) {
        invariant((1...100).contains(quality), "quality \(quality)")
    }
    // /api/v1/sample?at=X,Y&...&radius=R
    let points: [SamplePoint], radius: Int?
    do {
        let query = try QueryString(text, allowed: ["at", "radius"])
        for item in query.items {
            invariant(item.name == "at" || item.name == "radius", "parameter \(item.name) let through")
        }
        points = try query.points()
        radius = try query.integer("radius", in: 0...SamplingError.maximumRadius)
    } catch {
        return 0  // a 400 naming the parameter: what the endpoint answers
    }
    for point in points {
        invariant((0...1).contains(point.x) && (0...1).contains(point.y), "point \(point) outside the frame")
    }
    var samples: [ColorSample] = []
    for frame in frames {
        frame.bytes.withUnsafeBytes { bytes in
            RGBFrame(bytes: bytes, width: frame.width, height: frame.height)
                .sample(at: points, radius: radius ?? 0, into: &samples)
        }
        let side = 2 * (radius ?? 0) + 1
        for sample in samples {
            let n = sample.statistics.count
            invariant(
                n >= 1 && n <= min(frame.width, side) * min(frame.height, side),
                "\(n) pixels in a patch of radius \(radius ?? 0) on \(frame.width)x\(frame.height)")
        }
        _ = SampleJSON.object(frame: 0, timestamp: 0, colorimetry: Colorimetry(matrix: .bt709, range: .limited), samples: samples)
    }
    return 0
}
