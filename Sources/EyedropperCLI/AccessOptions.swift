import ArgumentParser
import EyedropperServer
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Who may use `serve`: a bearer token from `--token-file` or `EYEDROPPER_TOKEN`, or `--no-auth`.
/// Loopback needs neither; any other address needs one of them.
struct AccessOptions: ParsableArguments {
    @Option(
        name: .customLong("token-file"),
        help: ArgumentHelp(
            "A file holding the bearer token (visible ASCII; surrounding whitespace trimmed): every endpoint but GET / and /healthz then answers 401 without Authorization: Bearer TOKEN, on loopback too. Wins over EYEDROPPER_TOKEN.",
            valueName: "FILE"))
    var tokenFile: String?

    @Flag(
        name: .customLong("no-auth"),
        help: ArgumentHelp(
            "Serve a non-loopback address without a token: anyone who can reach it can watch the camera and set its controls (said on stderr at the start)."
        ))
    var noAuth = false

    /// The environment variable that gives the token when `--token-file` does not.
    static let environmentVariable = "EYEDROPPER_TOKEN"

    /// The token the server asks for, nil for none. Throws (usage, 64) for `--no-auth` with a
    /// token, an empty or unusable `EYEDROPPER_TOKEN`, and a non-loopback `configuration` with
    /// neither a token nor `--no-auth`; `TokenFileError` for a token file that gives none. Says
    /// on stderr which token is asked for (never the token) or, for `--no-auth`, that none is.
    func token(for configuration: ServeConfiguration, logger: Logger) throws -> BearerToken? {
        let environment = getenv(Self.environmentVariable).map { String(cString: $0) }
        if noAuth {
            guard tokenFile == nil, environment == nil else {
                let given = tokenFile != nil ? "--token-file" : Self.environmentVariable
                throw CommandFailure("--no-auth and \(given) contradict each other: give a token or --no-auth, not both", status: 64)
            }
            logger.warning(
                "warning: --no-auth: listening on \(configuration.host) with no token: anyone who can reach it can watch the camera and set its controls"
            )
            return nil
        }
        if let tokenFile {
            let token = try BearerToken(contentsOf: tokenFile)
            let ignored = environment == nil ? "" : " (\(Self.environmentVariable) is set too, and ignored)"
            logger.info("every endpoint but / and /healthz needs Authorization: Bearer with the token of \(tokenFile)\(ignored)")
            return token
        }
        if let environment {
            guard let token = BearerToken(environment) else {
                let problem =
                    environment.allSatisfy(\.isWhitespace)
                    ? "is empty"
                    : "holds whitespace, a control or a non-ASCII character inside the token, which an Authorization header cannot carry"
                throw CommandFailure(
                    "\(Self.environmentVariable) \(problem): set it to the token (visible ASCII, e.g. `openssl rand -hex 32`), or unset it",
                    status: 64)
            }
            logger.info("every endpoint but / and /healthz needs Authorization: Bearer with the token of \(Self.environmentVariable)")
            return token
        }
        guard configuration.isLoopback else {
            throw CommandFailure(
                "--listen \(configuration.host) is not loopback: give a token (--token-file FILE or \(Self.environmentVariable)) so that only its holders can watch the camera, or --no-auth to let anyone who can reach it",
                status: 64)
        }
        return nil
    }
}
