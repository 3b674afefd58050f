/// A header, then one `FRAME` line and I420 bytes per frame: what a hand-made test file holds.
public func y4mBytes(header: String, frames: [[UInt8]]) -> [UInt8] {
    Array(header.utf8) + frames.flatMap { Array("FRAME\n".utf8) + $0 }
}

/// Distinct bytes for one frame of a 4x2 stream (8 luma, 2 Cb, 2 Cr).
public func tinyFrame(_ seed: UInt8) -> [UInt8] { (0..<12).map { seed &+ UInt8($0) } }
