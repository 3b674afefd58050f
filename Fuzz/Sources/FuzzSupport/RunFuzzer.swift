import CFuzzDriver

/// Runs libFuzzer on `testOneInput` with the command line's flags and corpus directories; returns
/// libFuzzer's exit status.
///
/// Through `LLVMFuzzerRunDriver` from a main of our own rather than libFuzzer's `main`: SwiftPM
/// links every executable with `main` bound to the module's entry point, which a target without
/// top-level code (`-parse-as-library` and `@_cdecl("LLVMFuzzerTestOneInput")`) does not have.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
}
