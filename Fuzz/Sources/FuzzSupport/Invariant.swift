#if canImport(Glibc)
    import Glibc
#endif

/// Stops the run as a crash when `condition` is false, so libFuzzer saves the input and reports
/// it: a broken promise of the code under test, not a bug of the fuzzer. Unlike `precondition`,
/// it says what was broken in any build configuration.
public func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    guard !condition() else { return }
    let text = "invariant broken at \(file):\(line): \(message())\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    abort()
}

/// The fuzzer's input as the bytes a file would hold.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}
