import EyedropperTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve`'s timeout and TLS options, as a user meets their mistakes: each is one line on stderr
/// naming the option or file, with the status saying what kind, before anything listens. What the
/// timeouts and TLS do to clients is tested against real sockets by Tests/Serve/network-tests.sh.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ServeConnectionTests {
    /// Catches a timeout of 0 or below taken (a server closing every connection at once), and
    /// half a TLS pair taken (serving plain HTTP where HTTPS was meant).
    @Test(arguments: [
        (["--stall-timeout", "0"], "--stall-timeout must be more than 0 and at most 86400 seconds, got 0.0"),
        (["--header-timeout=-1"], "--header-timeout must be more than 0 and at most 86400 seconds, got -1.0"),
        (["--idle-timeout", "nan"], "--idle-timeout must be more than 0 and at most 86400 seconds, got nan"),
        (["--tls-cert", "cert.pem"], "--tls-cert needs --tls-key, the certificate's private key"),
        (["--tls-key", "key.pem"], "--tls-key needs --tls-cert, the certificate it belongs to"),
    ])
    func connectionUsageErrorsExit64(arguments: [String], message: String) throws {
        let result = try runEyedropper(["serve", "--source", "testpattern"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr == "eyedropper: \(message)\n", "\(result.stderr)")
    }

    /// A certificate or key that cannot be used stops serve at the start: 66 missing, 65 not PEM
    /// of the right kind or not a pair, one line naming the file. Catches serve listening anyway
    /// (it would be killed 30 s on, status 9), the files checked only at the first connection, or
    /// a message without the file.
    @Test func unusableTLSFilesStopServeAtTheStart() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(Self.certificate.utf8), to: scratch.file("cert.pem"))
        try ScratchDirectory.write(Array(Self.key.utf8), to: scratch.file("key.pem"))
        try ScratchDirectory.write(Array(Self.otherKey.utf8), to: scratch.file("other.pem"))
        for (certificate, key, status, words) in [
            ("none.pem", "key.pem", 66, ["cannot read the certificate (--tls-cert)", "none.pem", "No such file"]),
            ("cert.pem", "none.pem", 66, ["cannot read the private key (--tls-key)", "none.pem"]),
            ("key.pem", "key.pem", 65, ["key.pem is not a PEM certificate"]),
            ("cert.pem", "cert.pem", 65, ["cert.pem is not a PEM private key"]),
            ("cert.pem", "other.pem", 65, ["cert.pem and the private key", "other.pem cannot serve TLS together"]),
        ] as [(String, String, Int32, [String])] {
            let result = try ServeCommandTests.serveThatStops(
                ["--source", "testpattern", "--tls-cert", scratch.file(certificate), "--tls-key", scratch.file(key)])
            #expect(result.status == status, "\(certificate) \(key): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("eyedropper: "), "\(result.stderr)")
            #expect(words.allSatisfy { result.stderr.contains($0) }, "\(certificate) \(key): \(result.stderr)")
        }
    }

    /// A private key this user may not read: 77, naming the file. As root, serve runs as nobody
    /// (setpriv). Catches 65 or 66 for a permission refused.
    @Test func unreadableTLSKeyExits77() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(Self.certificate.utf8), to: scratch.file("cert.pem"))
        try ScratchDirectory.write(Array(Self.key.utf8), to: scratch.file("key.pem"))
        chmod(scratch.path, 0o755)  // so that nobody reaches the certificate, and is refused only the key
        chmod(scratch.file("cert.pem"), 0o644)
        chmod(scratch.file("key.pem"), 0)
        let result = try ServeCommandTests.serveThatStops(
            ["--source", "testpattern", "--tls-cert", scratch.file("cert.pem"), "--tls-key", scratch.file("key.pem")],
            asNobody: geteuid() == 0)
        #expect(result.status == 77, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix("eyedropper: cannot read the private key (--tls-key) \(scratch.file("key.pem"))"), "\(result.stderr)")
    }

    // A self-signed P-256 certificate for 127.0.0.1 (valid to 2126), its key, and another key:
    // made once with openssl for these tests, and for nothing else.
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBkDCCATagAwIBAgIUCBRaenpHFLVq4zN09XJHq3FMqXUwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNDAxNDg1MFoYDzIxMjYxMDMx
        MDE0ODUwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAAQgaKfI1fCBSXwhFK6gYyhaaBOI/knrOiFTL/Ru2Qb/t07tfZHExeH6
        RHklSKGXqQ16wPThUtScQCJGbxmcvyfFo2QwYjAdBgNVHQ4EFgQUtMJA/inqhO2H
        zdFx2Pyqa3optdIwHwYDVR0jBBgwFoAUtMJA/inqhO2HzdFx2Pyqa3optdIwDwYD
        VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
        IDYuWFD3iAizGXNWvcX5I2P4DEBcTwuvng4ZwDMhe28kAiEA6mram8DjUNNve5+q
        trwg+qPlFOFX51ondF982RmzOAY=
        -----END CERTIFICATE-----

        """
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgKszx3NsA9w3dI8sf
        +b+w9yurvBF6oWxWJXQCK5FDH26hRANCAAQgaKfI1fCBSXwhFK6gYyhaaBOI/knr
        OiFTL/Ru2Qb/t07tfZHExeH6RHklSKGXqQ16wPThUtScQCJGbxmcvyfF
        -----END PRIVATE KEY-----

        """
    static let otherKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRNYfHCuNFZmy9oOB
        mvyrh8e40RIunrwlpn2yMa1VBWihRANCAAQYq6C07OuRG8uHT6IHHyUTIaAULz0F
        7CaTqdt7eCTn5zh1TDj8t1d32Y996Xjnh/YjsmxKUVYFyVp1AUqQN89p
        -----END PRIVATE KEY-----

        """
}
