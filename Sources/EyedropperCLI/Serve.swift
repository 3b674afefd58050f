import ArgumentParser
import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperOutputs
import EyedropperServer
import Foundation
import Logging

/// `eyedropper serve`: one capture shared by any number of HTTP clients.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the colours, pictures and figures of one live capture over HTTP.",
        discussion: """
            Keeps one capture of SRC running, converts and samples each frame once and answers \
            from the newest frame: GET / (a page: the live picture, click to sample, a plot of \
            the --at points, the camera's controls), /api/v1/sample?at=X,Y&radius=R (one line of \
            `sample`), /api/v1/frame.jpg?quality=Q, /api/v1/stream.mjpg (MJPEG), \
            /api/v1/samples (Server-Sent Events at the --at points), /api/v1/status (JSON) and \
            /metrics (Prometheus).

            A camera's controls: GET /api/v1/controls (the listing of `controls --format json`), \
            PUT /api/v1/controls with a JSON object {"name": value, ...} (answered with the values \
            read back), POST /api/v1/controls/lock (as --lock, now). What is set is applied again \
            after every reconnect. Stops on Ctrl-C or SIGTERM.

            Access: loopback (the default) needs nothing. Any other --listen address needs a \
            bearer token, from --token-file FILE or else the environment variable \
            EYEDROPPER_TOKEN (--token-file wins when both are given), or --no-auth, said on \
            stderr at the start; without either serve exits 64. With a token, on any address, \
            every endpoint but GET / (the page, the same static text for everyone) and \
            GET /healthz answers 401 without Authorization: Bearer TOKEN; open the page as \
            http://HOST:PORT/#token=TOKEN and it sends the token itself.

            --profile PROFILE.json (from eyedropper calibrate) adds each sample's "calibrated" \
            colour to /api/v1/sample and /api/v1/samples, as `sample --profile` does, and \
            --target its "deltaE" and "pass"; /api/v1/status gains "profile" (with warnings \
            when the frames' colorimetry or size differ from the profile's) and "target", and \
            the page shows the calibrated colour and, with a target, ΔE and PASS or FAIL. A \
            profile that cannot be read stops serve at the start (66 missing, 65 damaged).

            --white-reference X,Y (with --profile) corrects every frame for the light's change \
            since the profile was made, as `sample --white-reference` does: each line gains \
            "reference"; /api/v1/status gains "reference" (the last frame's ΔE, gains, state, \
            and why the readings are uncorrected when they are), /metrics \
            eyedropper_reference_drift_delta_e, eyedropper_reference_gain{channel} and \
            eyedropper_reference_applied, OSC /eyedropper/reference, and the page plots the \
            drift. A profile applied later that recorded no reference (and no \
            --white-reference-lab) is served without it, the status saying so; the page's \
            Calibrate records the patch in the profiles it makes.

            --palette FILE (and --max-delta-e) names every sample as `sample --palette` does: \
            each sample gains "nearest" (so do MQTT's lines, OSC's /eyedropper/N/name and the \
            page's swatches), and /api/v1/status gains "palette".

            Calibrating from the page: with --profile-dir DIR, POST \
            /api/v1/calibration?frames=N finds the ColorChecker in the next N frames, fits a \
            profile as calibrate does (against --reference FILE if given) and writes it into \
            DIR, answering its name and the report of calibrate --format json; PUT \
            /api/v1/profile with {"name": "FILE.json"} applies a profile of DIR without a \
            restart, answering once a frame is read with it (the status then names it). Every \
            line calibrated by a profile says which: "profile":{"file":"FILE.json","generation":N}, \
            N counting the settings' changes since the start (reloads and profiles applied). The \
            page's ColorChecker card does both.

            Configuration: --config FILE reads serve's options from FILE, one a line without \
            their dashes (`listen 0.0.0.0:8080`, `at 0.25,0.5`, `no-auth`; # comments), before \
            those of the command line. SIGHUP (systemctl reload) reads it again and reloads the \
            profile, target and white reference, the palette, the token file and the TLS \
            certificate and key without dropping a client: a file that fails keeps what was \
            served, is logged and shows in the status ("reload"); other options changed there \
            take effect at the next restart. A profile applied from the page stays through a \
            reload that leaves the configuration's profile as it was. Started by \
            systemd as Type=notify, serve says when it is ready (first frame, or the camera's \
            failure), its stream and rate (STATUS=), and pings WATCHDOG=1 from the capture.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Read serve's options from FILE, one a line without their dashes (`listen 0.0.0.0:8080`); SIGHUP reads it again.",
            valueName: "FILE"))
    var config: String?

    @OptionGroup var input: SourceOptions

    @Option(
        help: ArgumentHelp(
            "Address and port to listen on; port 0 picks a free one. Anything but loopback is reachable by others.",
            valueName: "HOST:PORT"))
    var listen = ListenAddress(host: "127.0.0.1", port: 8080)

    /// Who may use it: a bearer token (--token-file, EYEDROPPER_TOKEN) or --no-auth.
    @OptionGroup var access: AccessOptions

    /// The points sampled in every frame for /api/v1/samples, and the default of /api/v1/sample.
    @OptionGroup var sampling: PointOptions

    /// Each sample's calibrated colour, and its ΔE to a target.
    @OptionGroup var calibration: CalibrationOptions

    @OptionGroup var naming: PaletteOptions

    @Option(
        name: .customLong("profile-dir"),
        help: ArgumentHelp(
            "A directory for profiles: the page's Calibrate writes each profile it fits there (POST /api/v1/calibration), and PUT /api/v1/profile applies one of them live.",
            valueName: "DIR"))
    var profileDirectory: String?

    @Option(
        help: ArgumentHelp(
            "Your chart's own L*a*b* (D50) as JSON, for the page's calibration, instead of the published values (as calibrate --reference).",
            valueName: "FILE"))
    var reference: String?

    @Option(name: .customLong("max-streams"), help: "Most MJPEG and event-stream clients at once; more are answered 503.")
    var maxStreams: Int = 16

    @Option(help: "JPEG quality of frame.jpg and the MJPEG stream, 1 to 100.")
    var quality: Int = 80

    /// MQTT and OSC: where each frame's samples go besides HTTP.
    @OptionGroup(title: "Outputs") var outputs: OutputOptions

    /// Timeouts and TLS: what a server on a network needs.
    @OptionGroup(title: "Connections") var connections: ConnectionOptions

    func validate() throws {
        guard maxStreams >= 1 else { throw ValidationError("--max-streams must be at least 1, got \(maxStreams)") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100, got \(quality)") }
    }

    func run() async throws {
        // Live, like a camera: the test pattern and files paced at their rate. A service waits out
        // every camera failure with --reconnect, from the start: it may start before its camera.
        var configuration = ServeConfiguration(source: try input.configuration(pacing: .live, reconnectPolicy: .always))
        configuration.points = sampling.pointsOrCentre
        configuration.radius = sampling.radius
        configuration.host = listen.host
        configuration.port = listen.port
        configuration.maxStreams = maxStreams
        configuration.jpegQuality = quality
        configuration.timeouts = connections.timeouts
        if let profileDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: profileDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(
                    "--profile-dir \(profileDirectory): no such directory (make it first, e.g. mkdir -p \(profileDirectory))", status: 66)
            }
            guard FileManager.default.isWritableFile(atPath: profileDirectory) else {
                throw CommandFailure(
                    "--profile-dir \(profileDirectory): cannot write there (give a directory this user can write)", status: 73)
            }
            configuration.profileDirectory = profileDirectory
        }
        if let reference { configuration.chartReference = try ChartReference.load(path: reference) }
        let logger = input.diagnostics.logger
        let options = try settingsOptions()
        try access.check(options.token, for: configuration)
        // The one build of the settings, as every reload makes them again.
        configuration.settings = try ServeSettings.load(options).settings
        access.announce(options.token, for: configuration, logger: logger)
        if let moved = (try? configuration.settings.whiteReference?.get())?.moved { logger.warning("warning: \(moved)") }
        let sinks = try outputs.open(
            source: configuration.source,
            discovery: HomeAssistantDiscovery(points: configuration.points, settings: configuration.settings), logger: logger)
        let (arguments, started) = (Array(CommandLine.arguments.dropFirst()), try config.map { try ConfigurationFile(path: $0) })
        do {
            try await EyedropperServer.run(
                configuration, outputs: sinks, reload: { try Self.reloadedOptions(arguments: arguments, startedWith: started) },
                logger: logger)
        } catch {
            sinks?.close()  // the server did not start: nothing else closes them
            throw error
        }
    }

    /// What the options name of the settings a reload may change (`ServeSettings`), typed.
    func settingsOptions() throws -> ServeSettings.Options {
        var options = ServeSettings.Options()
        options.profile = calibration.profile
        options.target = calibration.colorTarget
        options.reference = calibration.referenceSettings
        options.palette = naming.palette
        options.maxDeltaE = naming.maxDeltaE
        options.token = try access.tokenSource()
        options.tls = connections.tls
        return options
    }
}

extension Serve {
    /// The options a reload loads again; any other change takes a restart.
    static let reloadableOptions: Set = [
        "profile", "target", "tolerance", "white-reference", "white-reference-lab", "reference-model", "max-drift", "palette",
        "max-delta-e", "token-file", "tls-cert", "tls-key",
    ]

    /// What a reload loads: the options of the command line `arguments`, with its `--config` file
    /// read again, parsed as at the start; `started` is that file as serve started with it.
    /// Throws, naming the file and line, when the file or an option in it cannot be read.
    static func reloadedOptions(arguments: [String], startedWith started: ConfigurationFile?) throws -> ReloadedOptions {
        let expanded = try ConfigurationFile.expand(arguments)
        let serve: Serve
        do {
            serve = try Serve.parse(Array(expanded.arguments.dropFirst()))
        } catch {
            let message = Serve.message(for: error)
            throw CommandFailure(expanded.file?.locate(message) ?? message, status: 64)
        }
        var changed: Set<String> = []
        if let file = expanded.file, let started { changed = file.changedOptions(from: started) }
        return ReloadedOptions(options: try serve.settingsOptions(), restartNeeded: changed.subtracting(reloadableOptions).sorted())
    }
}

/// `HOST:PORT` or `[IPv6]:PORT`.
struct ListenAddress: Hashable {
    var host: String
    var port: Int
}

extension ListenAddress: ExpressibleByArgument {
    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let port = Int(argument[argument.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(argument[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    var defaultValueDescription: String { "\(host):\(port)" }
}
