import Eyedropper
import EyedropperCapture
import SystemPackage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The capture rules that need no device: format choice and error mapping.
@Suite struct CaptureRulesTests {
    private func format(_ fourCC: String, emulated: Bool = false) -> CaptureFormat {
        CaptureFormat(fourCC: fourCC, description: fourCC, emulated: emulated, sizes: [])
    }

    @Test func aNativeFormatIsPreferredAndOtherwiseLibv4l2Converts() throws {
        let webcam = [format("YUYV"), format("MJPG"), format("NV12"), format("YU12", emulated: true)]
        #expect(try CaptureSession.pixelFormat(asking: nil, from: webcam, device: "/dev/video0") == "NV12")
        // Only emulated 4:2:0 (libv4l2's own YU12): ask libv4l2 for YU12.
        let mjpegOnly = [format("MJPG"), format("YU12", emulated: true), format("RGB3", emulated: true)]
        #expect(try CaptureSession.pixelFormat(asking: nil, from: mjpegOnly, device: "/dev/video0") == "YU12")
        // Asked for: native kept, non-4:2:0 converted to YU12, case ignored.
        #expect(try CaptureSession.pixelFormat(asking: "yv12", from: webcam + [format("YV12")], device: "/dev/video0") == "YV12")
        #expect(try CaptureSession.pixelFormat(asking: "YUYV", from: webcam, device: "/dev/video0") == "YU12")
    }

    @Test func aFormatTheDeviceLacksIsRefusedByName() {
        #expect(throws: CaptureError(device: "/dev/video2", kind: .noAcceptableFormat("it does not offer H264 (it offers YUYV, MJPG)"))) {
            try CaptureSession.pixelFormat(asking: "H264", from: [format("YUYV"), format("MJPG")], device: "/dev/video2")
        }
    }

    @Test func errnoValuesBecomeNamedErrors() {
        #expect(CaptureError(device: "/dev/video0", operation: "open", Errno(rawValue: ENOENT)).kind == .notFound)
        #expect(CaptureError(device: "/dev/video0", operation: "open", Errno(rawValue: EACCES)).kind == .permissionDenied)
        #expect(CaptureError(device: "/dev/video0", operation: "VIDIOC_S_FMT", Errno(rawValue: EBUSY)).kind == .busy)
        #expect(CaptureError(device: "/dev/video0", operation: "VIDIOC_DQBUF", Errno(rawValue: ENODEV)).kind == .disconnected)
        #expect(CaptureError(device: "/dev/null", operation: "VIDIOC_QUERYCAP", Errno(rawValue: ENOTTY)).kind == .notCaptureDevice)
        let other = CaptureError(device: "/dev/video0", operation: "VIDIOC_QBUF", Errno(rawValue: EIO))
        #expect(other.kind == .failed(SystemCallError(operation: "VIDIOC_QBUF", errno: Errno(rawValue: EIO))))
        #expect(other.description == "/dev/video0: VIDIOC_QBUF failed: Input/output error")
        #expect(CaptureError(device: "/dev/video0", kind: .permissionDenied).description.contains("'video' group"))
    }
}
