/// An error that the command line reports as one line on stderr and exits with a sysexits(3)
/// status: every error a command can see conforms, so the status of each is said where the error
/// is defined, once, and a new error type without one is caught by a test that walks them all
/// (ExitStatusTests).
public protocol ExitStatusError: Error, CustomStringConvertible {
    /// The sysexits status: 64 usage, 65 a damaged input, 66 a missing input, 69 a service
    /// unavailable, 70 an internal failure, 71 an operating-system failure, 73 an output that
    /// cannot be made, 74 input/output failing, 77 permission denied.
    var exitStatus: Int32 { get }
}
