import Eyedropper
import Testing

/// The README's library example, as it stands there: it must compile and print what it says.
/// Catches an API change that breaks the front door's example, or a test pattern whose centre is
/// no longer the magenta bar.
@Test func readmeLibraryExample() throws {
    let pattern = try TestPattern(width: 1280, height: 720)  // BT.709 limited, like an HD camera
    let frames = try pattern.makeFrameBuffer(layout: .nv12)
    let sampler = ColorSampler()  // one per worker: it owns its buffer
    var samples: [ColorSample] = []
    try frames.withFrame { frame in  // a frame is only ever lent
        try sampler.sample(frame, at: [try SamplePoint(x: 0.5, y: 0.5)], into: &samples)
    }
    #expect(samples[0].color.hex == "#bf00c0")
}
