import EyedropperCapture

extension SourceOptions {
    /// --source, or when none is given the first capture device, else "testpattern"; says on
    /// stderr which it chose.
    func sourceOrDefault() -> String {
        if let source { return source }
        let camera = CaptureDevices.list().first?.path
        printError("eyedropper: no --source given: reading \(camera ?? "the built-in test pattern")")
        return camera ?? "testpattern"
    }
}
