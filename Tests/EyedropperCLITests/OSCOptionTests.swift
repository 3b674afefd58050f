import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--osc HOST:PORT` on the command line: what is refused before anything opens, and a peer
/// that is not there never stops the samples.
@Suite struct OSCOptionTests {
    /// A value that is not HOST:PORT (or port 0) is a usage error, one line, on sample and serve
    /// alike, before the test pattern is read (nothing on stdout).
    @Test(arguments: ["9000", "localhost", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:70000", ":9000", "[]:9000"])
    func aMalformedPeerIsAUsageError(value: String) throws {
        for command in ["sample", "serve"] {
            let result = try runEyedropper([command, "--source", "testpattern", "--osc", value])
            #expect(result.status == 64, "\(command) --osc \(value): \(result.stderr)")
            #expect(result.stdout == "")
            #expect(
                result.stderr.split(separator: "\n").count == 1
                    && result.stderr.contains("The value '\(value)' is invalid for '--osc <HOST:PORT>': give HOST:PORT"),
                "\(result.stderr)")
        }
    }

    /// A host that cannot be resolved: 69 (EX_UNAVAILABLE), one line naming it, no samples.
    @Test func anUnresolvableHostIs69() throws {
        let result = try runEyedropper([
            "sample", "--source", "testpattern", "--log-level", "warning", "--osc", "no-such-host.invalid:9000",
        ])
        #expect(result.status == 69)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("eyedropper: OSC peer no-such-host.invalid:9000 (--osc): cannot resolve no-such-host.invalid: "))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    /// Nothing listening on the port: every line is still printed and the exit is 0; the failed
    /// sends (every other one, by the ICMP port unreachable each brings back) are said once, not
    /// per frame.
    @Test func aPeerThatIsNotThereIsSaidOnceAndTheSamplesGoOn() throws {
        let quiet = try runEyedropper(["sample", "--source", "testpattern", "--frames", "40", "--log-level", "warning"])
        let result = try runEyedropper([
            "sample", "--source", "testpattern", "--frames", "40", "--log-level", "warning", "--osc", "127.0.0.1:\(try closedPort())",
        ])
        #expect(result.status == 0)
        #expect(result.stdout == quiet.stdout && result.stdout.split(separator: "\n").count == 40)
        let said = result.stderr.split(separator: "\n")
        #expect(said.count == 1 && said[0].contains("Connection refused"), "\(result.stderr)")
    }

    /// A UDP port of 127.0.0.1 that nothing listens on: one bound, read and closed again.
    private func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(fd >= 0 && bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
