import Eyedropper
import EyedropperCalibration
import EyedropperPipeline
import NIOSSL

/// What serve serves that may change while it runs, as one value: the profile (and the target and
/// white reference its readings are compared with and corrected by), the palette, the token and
/// the TLS certificate, with the options they were loaded from. Made by one function,
/// `ServeSettings.load`, at the start and at every reload; `LiveSettings` holds the one in use,
/// and every part of the server reads it there.
public struct ServeSettings: Sendable {
    /// What the configuration asked for: the files to load and the typed values.
    public let options: Options
    /// The profile every reading is calibrated with: `options.profile`, or one applied from the
    /// page since (`PUT /api/v1/profile`); nil: none.
    public let profile: LoadedProfile?
    /// `--palette` (and `--max-delta-e`): every sample is named from it.
    public let palette: PaletteSettings?
    /// `--token-file` or `EYEDROPPER_TOKEN`: every route but the page and `/healthz` answers 401
    /// without `Authorization: Bearer TOKEN`. nil: no token is asked for (loopback, `--no-auth`).
    public let token: BearerToken?
    /// `--tls-cert` and `--tls-key`, read and checked: HTTPS instead of HTTP. New connections take
    /// the one in use when they begin.
    public let tls: LoadedTLS?

    /// What `serve`'s options name; `load` reads the files.
    public struct Options: Hashable, Sendable {
        /// `--profile`.
        public var profile: String?
        /// `--target` (and `--tolerance`): compared with the calibrated colour, so only with a
        /// profile.
        public var target: ColorTarget?
        /// `--white-reference` and its options: a `WhiteReference` is made with each profile
        /// served; one that cannot take it is served without it, and the status says why.
        public var reference: WhiteReferenceSettings?
        /// `--palette` and `--max-delta-e`.
        public var palette: String?
        public var maxDeltaE: Double?
        public var token: TokenSource = .none
        public var tls: TLSFiles?

        public init() {}
    }

    /// Where the token comes from.
    public enum TokenSource: Hashable, Sendable {
        /// None is asked for.
        case none
        /// `--token-file`: read at the start and again at every reload.
        case file(String)
        /// `EYEDROPPER_TOKEN`, read when the process started (its environment does not change).
        case environment(BearerToken)
    }

    /// A profile and the file it was read from.
    public struct LoadedProfile: Sendable {
        public let profile: CameraProfile
        /// As given (`--profile`), or the profile directory's file applied from the page.
        public let path: String

        public init(profile: CameraProfile, path: String) {
            self.profile = profile
            self.path = path
        }
    }

    /// A certificate chain and key, and the TLS context made of them.
    public struct LoadedTLS: Sendable {
        public let files: TLSFiles
        let context: NIOSSLContext
    }

    /// A PEM certificate chain (the server's certificate first) and its private key.
    public struct TLSFiles: Hashable, Sendable {
        public var certificatePath: String
        public var keyPath: String

        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    /// No profile, palette, token or TLS.
    public static let none = ServeSettings(options: Options(), profile: nil, palette: nil, token: nil, tls: nil)

    /// Settings made in memory (a library user's, the tests'): `options` says no file, and a
    /// reload with a configuration loads what that names.
    public init(
        profile: LoadedProfile? = nil, target: ColorTarget? = nil, reference: WhiteReferenceSettings? = nil,
        palette: PaletteSettings? = nil, token: BearerToken? = nil, tls: TLSFiles? = nil
    ) throws(TLSFileError) {
        var options = Options()
        options.target = target
        options.reference = reference
        options.tls = tls
        options.token = token.map { .environment($0) } ?? .none
        var loaded: LoadedTLS?
        if let tls { loaded = LoadedTLS(files: tls, context: try tls.context()) }
        self.init(options: options, profile: profile, palette: palette, token: token, tls: loaded)
    }

    private init(options: Options, profile: LoadedProfile?, palette: PaletteSettings?, token: BearerToken?, tls: LoadedTLS?) {
        self.options = options
        self.profile = profile
        self.palette = palette
        self.token = token
        self.tls = tls
    }

    /// `--target`, when there is a profile to compare with it.
    public var target: ColorTarget? { profile == nil ? nil : options.target }

    /// The white reference of the profile served and `options.reference`: nil without either,
    /// else the reference or why this profile cannot take it.
    public var whiteReference: Result<WhiteReference, WhiteReferenceError>? {
        guard let profile, let settings = options.reference else { return nil }
        return Result { () throws(WhiteReferenceError) in try WhiteReference(profile: profile.profile, settings: settings) }
    }

    /// These settings with `profile` applied in place of the one served (the page's
    /// `PUT /api/v1/profile`): the target, white reference and the rest stay as configured.
    package func applying(_ profile: LoadedProfile) -> ServeSettings {
        ServeSettings(options: options, profile: profile, palette: palette, token: token, tls: tls)
    }
}

extension ServeSettings {
    /// What loading a configuration did: the settings, and for a reload, what was loaded, what
    /// failed (each part that failed keeps what was served) and what takes a restart.
    public struct Loaded: Sendable {
        public let settings: ServeSettings
        /// Each a phrase for the log: "the profile p.json", ...
        public let loaded: [String]
        /// What could not be loaded, each naming the file and saying what was kept.
        public let errors: [String]
        /// Options changed that take effect only at a restart, by their long names.
        public let restartNeeded: [String]
    }

    /// The settings `options` name, each file read. At the start (`current` nil) the first part
    /// that fails throws its error (`ExitStatusError`s naming the file), as does a profile that
    /// cannot take the white reference asked for; at a reload each part that fails keeps
    /// `current`'s, and the error is in the answer.
    ///
    /// A profile applied from the page survives a reload that leaves the configuration's profile
    /// as it was (its file is read again); one that changes or removes it takes its place.
    public static func load(_ options: Options, over current: ServeSettings? = nil) throws -> Loaded {
        var loaded: [String] = [], errors: [String] = [], restartNeeded: [String] = []
        /// `load()`, or at a reload, on failure, `kept` with the error noted and why.
        func part<T>(_ kept: T, _ keeping: String, _ load: () throws -> T) throws -> T {
            do {
                return try load()
            } catch {
                guard current != nil else { throw error }
                errors.append("\(error) (\(keeping))")
                return kept
            }
        }

        let profilePath =
            if let current, current.options.profile == options.profile { current.profile?.path } else { options.profile }
        let profile = try part(current?.profile, "the profile served is kept") {
            try profilePath.map { path in
                let profile = LoadedProfile(profile: try CameraProfile.load(path: path), path: path)
                loaded.append("the profile \(path)" + (options.target.map { " with the target \(Self.text($0.lab))" } ?? ""))
                return profile
            }
        }
        if current?.profile != nil, profile == nil { loaded.append("no profile") }

        let palette = try part(current?.palette, "the palette served is kept") {
            try options.palette.map { path in
                let palette = PaletteSettings(palette: try Palette.load(path: path), maxDeltaE: options.maxDeltaE)
                loaded.append("the palette \(path)")
                return palette
            }
        }

        var token = current?.token
        switch (current, current?.token, options.token) {
        case (nil, _, .file(let path)), (_?, _?, .file(let path)):
            token = try part(token, "the token asked for is kept") {
                let read = try BearerToken(contentsOf: path)
                loaded.append("the token of \(path)")
                return read
            }
        case (nil, _, .environment(let given)):
            token = given
        case (_?, _?, .none):
            errors.append("the configuration gives no token now: serving without one takes a restart (the token asked for is kept)")
        case (_?, nil, .file):
            restartNeeded.append("token-file")
        case (nil, _, .none), (_?, _, .environment), (_?, nil, .none):
            break
        }

        // Whether serve speaks HTTPS is decided at the start: a reload may change the files only.
        var tls = current?.tls
        if let files = options.tls, current == nil || current?.tls != nil {
            tls = try part(tls, "new connections keep the certificate they had") {
                let read = LoadedTLS(files: files, context: try files.context())
                loaded.append("the certificate \(files.certificatePath) and key \(files.keyPath)")
                return read
            }
        } else if current != nil, (current?.tls == nil) != (options.tls == nil) {
            restartNeeded.append("tls-cert")
        }
        let settings = ServeSettings(options: options, profile: profile, palette: palette, token: token, tls: tls)
        if case .failure(let error) = settings.whiteReference, let profile {
            guard current != nil else { throw ReferenceRefused(path: profile.path, error: error) }
            errors.append("--white-reference with \(profile.path): \(error) (served without the reference)")
        }
        return Loaded(settings: settings, loaded: loaded, errors: errors, restartNeeded: restartNeeded)
    }
}

extension ServeSettings {
    /// `L,a,b` to 2 decimals at most, as a person writes it (`50,0,0`).
    static func text(_ lab: CIELab) -> String {
        [lab.l, lab.a, lab.b].map { DecimalText.atMost($0, 2) }.joined(separator: ",")
    }
}

/// At the start, a profile that cannot take `--white-reference` (it recorded none, and no
/// `--white-reference-lab`): a usage error (64), as for `sample`.
public struct ReferenceRefused: Error, CustomStringConvertible, ExitStatusError {
    public let path: String
    public let error: WhiteReferenceError

    public init(path: String, error: WhiteReferenceError) {
        self.path = path
        self.error = error
    }

    public var description: String { "--white-reference with \(path): \(error)" }
    public var exitStatus: Int32 { error.exitStatus }
}
