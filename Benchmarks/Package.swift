// swift-tools-version:6.1
import PackageDescription

// A package of its own so that Eyedropper's users never resolve package-benchmark or link libyuv.
let package = Package(
    name: "EyedropperBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Eyedropper", path: ".."),
        // The trait list replaces package-benchmark's defaults: keep only the malloc interposer
        // (needed for the mallocCount metrics the thresholds check).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Debian's libyuv-dev ships no pkg-config file, so the module map names the library itself.
        .systemLibrary(
            name: "CLibYUV",
            path: "Sources/CLibYUV",
            providers: [.apt(["libyuv-dev"]), .brew(["libyuv"])]
        ),
        // libturbojpeg called directly, as the JPEG suite's peer. The main package's CTurboJPEG is
        // not a product, so other packages cannot depend on it; this is the same four lines.
        .systemLibrary(
            name: "CTurboJPEGBench",
            path: "Sources/CTurboJPEGBench",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]
        ),
        // libmosquitto called directly, as the Publish suite's peer (the main package's CMosquitto is
        // not a product).
        .systemLibrary(
            name: "CMosquittoBench",
            path: "Sources/CMosquittoBench",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]
        ),
        // What the suites share: the same frames (random, test pattern, noisy test pattern) and
        // sample points every run, one configuration.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Eyedropper", package: "Eyedropper"),
                .product(name: "Benchmark", package: "benchmark"),
            ]
        ),
        suite("Convert", ["CLibYUV"]),
        suite("Sample", [.product(name: "EyedropperCalibration", package: "Eyedropper")]),
        suite("JPEG", [.product(name: "EyedropperJPEG", package: "Eyedropper"), "CTurboJPEGBench", "CLibYUV"]),
        suite(
            "Publish",
            [
                .product(name: "EyedropperOutputs", package: "Eyedropper"),
                .product(name: "EyedropperPipeline", package: "Eyedropper"), "CMosquittoBench",
            ]),
        suite(
            "EndToEnd",
            [
                .product(name: "EyedropperJPEG", package: "Eyedropper"),
                .product(name: "EyedropperCapture", package: "Eyedropper"),
            ]),
    ]
)

/// A suite: Benchmarks/<name>/<name>.swift, run by package-benchmark's plugin, with the support
/// target, the library and package-benchmark, and whatever peers it measures against.
func suite(_ name: String, _ peers: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [
            "BenchmarkSupport",
            .product(name: "Eyedropper", package: "Eyedropper"),
            .product(name: "Benchmark", package: "benchmark"),
        ] + peers,
        path: "Benchmarks/\(name)",
        plugins: [
            .plugin(name: "BenchmarkPlugin", package: "benchmark")
        ]
    )
}
