import Eyedropper

/// A converted frame's RGB24 pixels, tightly packed, as `LatestFrame` lends them.
struct RGBFrame {
    let bytes: UnsafeRawBufferPointer
    let width: Int
    let height: Int

    /// The colours at `points`, each the pixel or the rounded mean of the patch around it, exactly
    /// as `ColorSampler` computes them. Replaces the contents of `samples`, keeping its capacity.
    func sample(_ points: [SamplePoint], radius: Int, into samples: inout [ColorSample]) {
        samples.removeAll(keepingCapacity: true)
        for point in points {
            samples.append(ColorSample(point: point, color: ColorSampler.patchMean(
                around: point, radius: radius, width: width, height: height) { x, y in
                    let offset = (y * width + x) * 3
                    return RGB8(r: bytes[offset], g: bytes[offset + 1], b: bytes[offset + 2])
                }))
        }
    }
}
