// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the inputs Eyedropper takes from outside: `.y4m` files, the service's
// query strings, and the JSON files it reads (profile, chart reference, camera controls).
// A package of its own, built only by Scripts/fuzz with `-sanitize=fuzzer,address` into
// .build/fuzz, so that the main build and Eyedropper's users never see it. Each target defines
// a test function it hands to libFuzzer from main.swift (`runFuzzer`).
let package = Package(
    name: "EyedropperFuzz",
    dependencies: [
        .package(name: "Eyedropper", path: "..")
    ],
    targets: [
        // What every fuzzer shares: the invariant check that makes libFuzzer keep the input.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
        fuzzer("FuzzY4M"),
        // The query parser lives with the server, whose file FuzzQuery compiles itself (a symbolic
        // link): linking the server would build its HTTP stack under the fuzzer and ASan, about
        // ten minutes of the test run. The sample line comes from the pipeline.
        fuzzer("FuzzQuery", [.product(name: "EyedropperPipeline", package: "Eyedropper")]),
        fuzzer(
            "FuzzProfile",
            [
                .product(name: "EyedropperCalibration", package: "Eyedropper"), .product(name: "EyedropperPipeline", package: "Eyedropper"),
            ]),
        fuzzer("FuzzReference", [.product(name: "EyedropperCalibration", package: "Eyedropper")]),
        // The only one that links the capture library, for `ControlSetting.settings(json:)`.
        fuzzer("FuzzControls", [.product(name: "EyedropperCapture", package: "Eyedropper")]),
    ]
)

func fuzzer(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport", .product(name: "Eyedropper", package: "Eyedropper")] + dependencies)
}
