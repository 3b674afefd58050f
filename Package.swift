// swift-tools-version:6.0
import PackageDescription

/// Link flags of the release executable: the Swift runtime and Foundation linked in (see
/// EyedropperCLI below).
let staticRuntime = [
    "-static-stdlib",
    "-Xlinker", "--start-group",
    "-lFoundation", "-lFoundationInternationalization", "-lFoundationEssentials", "-lCoreFoundation",
    "-l_FoundationICU", "-l_FoundationCShims", "-l_FoundationCollections",
    "-lswiftSynchronization", "-lswiftDispatch", "-ldispatch", "-lBlocksRuntime", "-lswiftCore",
    "-Xlinker", "--end-group",
    "-Xlinker", "-z", "-Xlinker", "now",
]

let package = Package(
    name: "Eyedropper",
    products: [
        .library(name: "Eyedropper", targets: ["Eyedropper"]),
        .library(name: "EyedropperCalibration", targets: ["EyedropperCalibration"]),
        .library(name: "EyedropperCapture", targets: ["EyedropperCapture"]),
        .library(name: "EyedropperNetwork", targets: ["EyedropperNetwork"]),
        .library(name: "EyedropperJPEG", targets: ["EyedropperJPEG"]),
        .library(name: "EyedropperPipeline", targets: ["EyedropperPipeline"]),
        .library(name: "EyedropperOutputs", targets: ["EyedropperOutputs"]),
        .library(name: "EyedropperServer", targets: ["EyedropperServer"]),
        .executable(name: "eyedropper", targets: ["EyedropperCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // Hummingbird's own, named for serve's timeout handlers and its TLS (NIOSSL's handler, as
        // HummingbirdTLS uses it).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.2"),
        // `swift package generate-documentation`: the library's DocC catalog, built by Scripts/test.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The 256-bit row kernels. C, not Swift: Swift has no per-function target attribute, and
        // compiling a Swift module for AVX2 (unsafeFlags) would bar this library from being a
        // dependency of other packages. `__attribute__((target("avx2")))` on single functions keeps
        // one binary that runs on any x86-64 CPU and picks the kernel at run time (cpuid).
        .target(name: "CEyedropperKernels"),
        .target(
            name: "Eyedropper",
            dependencies: ["CEyedropperKernels", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Colour you can compare: CIE XYZ, L*a*b*, CIEDE2000, the ColorChecker, camera profiles and
        // their fit, and the picture `calibrate --picture` draws. A target of its own: the
        // converter and sampler never carry it.
        .target(name: "EyedropperCalibration", dependencies: ["Eyedropper"]),
        // V4L2 capture through libv4l2, in a target of its own so that conversion alone never
        // links it.
        .systemLibrary(name: "CV4L2", pkgConfig: "libv4l2", providers: [.apt(["libv4l-dev"])]),
        .target(
            name: "EyedropperCapture",
            dependencies: [
                "Eyedropper", "CV4L2",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Network cameras (RTSP, MJPEG over HTTP) through FFmpeg's libavformat and libavcodec, in a
        // target of its own: conversion and V4L2 capture never see FFmpeg (capture defines the
        // `NetworkStream` it provides), and a library user gets it only by naming it. Nothing links
        // FFmpeg: CFFmpeg loads its libraries (dlopen) when the first network camera is opened,
        // so `ldd eyedropper` lists 27 lines rather than 153 and a machine without FFmpeg runs every
        // other source; its headers come from libavformat-dev, libavcodec-dev and libavutil-dev.
        // Chosen over GStreamer by measurement (docs/performance.md, "Network cameras").
        .target(name: "CFFmpeg"),
        .target(name: "EyedropperNetwork", dependencies: ["Eyedropper", "EyedropperCapture", "CFFmpeg"]),
        // JPEG in one place: the remap of a frame's planes into JPEG's Y'CbCr (its C row kernels
        // beside it) and the libturbojpeg encoder that compresses them.
        .target(name: "CEyedropperJPEGKernels"),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .target(
            name: "EyedropperJPEG",
            dependencies: ["Eyedropper", "CEyedropperJPEGKernels", "CTurboJPEG"]
        ),
        // What happens to each lent frame (sample, calibrate, check, stamp: a `Reading`), once for
        // `sample`, serve's capture loop and its sample endpoint.
        .target(name: "EyedropperPipeline", dependencies: ["Eyedropper", "EyedropperCalibration"]),
        // MQTT through libmosquitto (no Swift MQTT package resolves here), in the outputs target
        // only: conversion, capture and JPEG never link it.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // Where readings go besides stdout and HTTP: an MQTT broker and OSC peers.
        .target(
            name: "EyedropperOutputs",
            dependencies: [
                "Eyedropper", "EyedropperCalibration", "EyedropperPipeline", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // `eyedropper serve`: one capture shared by many HTTP clients, in a target of its own so
        // that the other commands and library users never link the HTTP stack.
        .target(
            name: "EyedropperServer",
            dependencies: [
                "Eyedropper",
                "EyedropperCalibration",
                "EyedropperCapture",
                "EyedropperJPEG",
                "EyedropperOutputs",
                "EyedropperPipeline",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [
                .embedInCode("openapi.json"),  // the API's contract, served as it is kept
                // The page (GET /): HTML, CSS and the script's parts, put together by `Page`.
                .embedInCode("Page/page.html"), .embedInCode("Page/page.css"), .embedInCode("Page/setup.js"),
                .embedInCode("Page/access.js"), .embedInCode("Page/calibration.js"), .embedInCode("Page/click.js"),
                .embedInCode("Page/plot.js"), .embedInCode("Page/drift.js"), .embedInCode("Page/status.js"),
                .embedInCode("Page/controls.js"),
                .embedInCode("Page/chart.js"), .embedInCode("Page/record.js"),
                .embedInCode("Page/hook.js"),
            ]
        ),
        .executableTarget(
            name: "EyedropperCLI",
            dependencies: [
                "Eyedropper",
                "EyedropperCalibration",
                "EyedropperCapture",
                "EyedropperJPEG",
                "EyedropperNetwork",
                "EyedropperServer",
                "EyedropperOutputs",
                "EyedropperPipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            // A release build links the Swift runtime and Foundation in, and binds every symbol at
            // the start (-z now, so that the relocations can be made read-only): the binary the
            // tests run is the binary the Debian package ships (Scripts/package), and it runs on a
            // machine without the Swift toolchain. Link flags, not `--static-swift-stdlib`, which
            // passes -static-stdlib to every compile too: the package's build would compile every
            // module again, and the test targets would not find Swift Testing. Compiled against
            // the shared Foundation, the objects do not name the static one's own libraries
            // (CoreFoundation, ICU: what swift-autolink-extract lists for a -static-stdlib
            // object), so they are named here, in a group, as archives need. Unsafe flags on the
            // executable bar none of the libraries from being a dependency elsewhere.
            linkerSettings: [.unsafeFlags(staticRuntime, .when(configuration: .release))]
        ),
        // Tests: one target per library target, the command line through the built executable,
        // and the helpers they share (scratch directories, guarded frames, running eyedropper).
        .target(name: "EyedropperTestSupport", dependencies: ["Eyedropper", "EyedropperCalibration"], path: "Tests/EyedropperTestSupport"),
        .testTarget(
            name: "EyedropperCalibrationTests",
            dependencies: ["Eyedropper", "EyedropperCalibration", "EyedropperTestSupport"]),
        .testTarget(
            name: "EyedropperTests",
            dependencies: ["Eyedropper", "EyedropperTestSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "EyedropperCaptureTests",
            dependencies: [
                "EyedropperCapture", "EyedropperTestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(name: "EyedropperJPEGTests", dependencies: ["Eyedropper", "EyedropperJPEG", "EyedropperTestSupport"]),
        .testTarget(
            name: "EyedropperCLITests",
            dependencies: [
                "Eyedropper", "EyedropperCalibration", "EyedropperCapture", "EyedropperJPEG", "EyedropperOutputs", "EyedropperPipeline",
                "EyedropperServer", "EyedropperTestSupport",
            ]),
        .testTarget(
            name: "EyedropperOutputsTests",
            dependencies: ["Eyedropper", "EyedropperCalibration", "EyedropperOutputs", "EyedropperPipeline"]),
        .testTarget(
            name: "EyedropperPipelineTests",
            dependencies: ["Eyedropper", "EyedropperCalibration", "EyedropperPipeline", "EyedropperTestSupport"]),
        // The HTTP API in process: `buildApplication`'s responder handed requests (InProcessClient).
        // Not HummingbirdTesting: its live client (AsyncHTTPClient, HTTP/2), which these tests never
        // use, was a seventh of the object code of the release build.
        .testTarget(
            name: "EyedropperServerTests",
            dependencies: [
                "Eyedropper", "EyedropperCalibration", "EyedropperCapture", "EyedropperJPEG", "EyedropperOutputs", "EyedropperPipeline",
                "EyedropperServer", "EyedropperTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ]
)

// The thread sanitizer's build in Scripts/test (`EYEDROPPER_THREAD_SANITIZER_BUILD=1`, its own
// scratch path) runs the library's concurrency tests and `eyedropper serve`: it leaves out the
// other test targets, none of which it runs. The package's dependencies stay as they are, so that
// Package.resolved is the same for every build.
if Context.environment["EYEDROPPER_THREAD_SANITIZER_BUILD"] == "1" {
    package.targets.removeAll { $0.type == .test && $0.name != "EyedropperTests" }
}
