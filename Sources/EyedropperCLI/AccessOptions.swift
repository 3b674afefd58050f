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

    /// Where the token comes from: `--token-file`, else `EYEDROPPER_TOKEN`, else none; the one
    /// place that precedence is written, read at the start and at every reload. Throws (usage,
    /// 64) for `--no-auth` with a token and an empty or unusable `EYEDROPPER_TOKEN`.
    func tokenSource() throws -> ServeSettings.TokenSource {
        let environment = getenv(Self.environmentVariable).map { String(cString: $0) }
        if noAuth, tokenFile != nil || environment != nil {
            let given = tokenFile != nil ? "--token-file" : Self.environmentVariable
            throw CommandFailure("--no-auth and \(given) contradict each other: give a token or --no-auth, not both", status: 64)
        }
        if let tokenFile { return .file(tokenFile) }
        guard let environment else { return .none }
        guard let token = BearerToken(environment) else {
            let problem =
                environment.allSatisfy(\.isWhitespace)
                ? "is empty"
                : "holds whitespace, a control or a non-ASCII character inside the token, which an Authorization header cannot carry"
            throw CommandFailure(
                "\(Self.environmentVariable) \(problem): set it to the token (visible ASCII, e.g. `openssl rand -hex 32`), or unset it",
                status: 64)
        }
        return .environment(token)
    }

    /// At the start, before anything is read: refuses (usage, 64) a non-loopback `configuration`
    /// with neither a token nor `--no-auth`.
    func check(_ source: ServeSettings.TokenSource, for configuration: ServeConfiguration) throws {
        guard source == .none, !noAuth, !configuration.isLoopback else { return }
        throw CommandFailure(
            "--listen \(configuration.host) is not loopback: give a token (--token-file FILE or \(Self.environmentVariable)) so that only its holders can watch the camera, or --no-auth to let anyone who can reach it",
            status: 64)
    }

    /// Once the token is read: says on stderr which token is asked for (never the token) or, for
    /// `--no-auth`, that none is.
    func announce(_ source: ServeSettings.TokenSource, for configuration: ServeConfiguration, logger: Logger) {
        switch source {
        case .file(let path):
            let ignored = getenv(Self.environmentVariable) == nil ? "" : " (\(Self.environmentVariable) is set too, and ignored)"
            logger.info("every endpoint but / and /healthz needs Authorization: Bearer with the token of \(path)\(ignored)")
        case .environment:
            logger.info("every endpoint but / and /healthz needs Authorization: Bearer with the token of \(Self.environmentVariable)")
        case .none where noAuth:
            logger.warning(
                "warning: --no-auth: listening on \(configuration.host) with no token: anyone who can reach it can watch the camera and set its controls"
            )
        case .none:
            break
        }
    }
}
