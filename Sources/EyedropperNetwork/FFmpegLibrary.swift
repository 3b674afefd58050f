internal import CFFmpeg
import EyedropperCapture

/// FFmpeg's functions, loaded with the first network camera opened (`ed_ffmpeg_load`): a run
/// that reads no network camera never loads FFmpeg, and one where its libraries are missing says
/// which Debian packages install them.
enum FFmpegLibrary {
    /// The table of FFmpeg's functions, loading the libraries at the first call; throws a
    /// `CaptureError` naming `url` (`.decoderMissing`, exit 69) when they cannot be loaded.
    static func load(for url: String) throws(CaptureError) -> ed_ffmpeg {
        var error = [CChar](repeating: 0, count: 512)
        guard let table = ed_ffmpeg_load(&error, error.count) else {
            let said = error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw CaptureError(
                device: url,
                kind: .decoderMissing(
                    "network cameras are decoded by FFmpeg, whose libraries are not installed (\(said)): "
                        + "sudo apt install \(String(cString: ed_ffmpeg_packages))"))
        }
        return table.pointee
    }
}
