import Eyedropper
import SystemPackage

/// `serve --config FILE`: serve's long options, one a line, without their dashes, so that one
/// file a person edits (`/etc/eyedropper/video0.conf`) can say everything the command line can:
///
///     # the camera, and where to answer
///     source /dev/video0
///     listen 0.0.0.0:8080
///     token-file /etc/eyedropper/token
///     at 0.25,0.5
///     at 0.75,0.5
///
/// A line is `name value` (the value is the rest of the line, spaces inside kept, no quoting) or
/// `name` alone for a flag (`no-auth`); `#` begins a comment line. The file's options come first,
/// then the command line's, so the command line adds to a repeated option (`--at`) and wins for
/// the others. SIGHUP reads the file again (`Serve.reloadSettings`).
struct ConfigurationFile: Hashable {
    /// The file, as given.
    let path: String
    let entries: [Entry]

    struct Entry: Hashable {
        /// 1-based.
        let line: Int
        let name: String
        let value: String?
    }

    /// The options of the file at `path`. Throws, naming the file and the line: a missing file
    /// (66), one that cannot be read (77 for permission) and a line that is not an option (65).
    init(path: String) throws(CommandFailure) {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWholeFile(path)
        } catch {
            throw CommandFailure("--config \(path): cannot read it: \(error.text)", status: error.inputExitStatus)
        }
        var entries: [Entry] = []
        for (index, line) in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            let text = line.trimmingWhitespace
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let name = text.prefix { !$0.isWhitespace }
            let value = text.dropFirst(name.count).trimmingWhitespace
            let isName =
                name.first.map { $0.isASCII && $0.isLetter } == true
                && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            guard isName, !name.hasPrefix("-") else {
                throw CommandFailure(
                    "--config \(path) line \(index + 1): \(String(name).debugDescription) is not an option name: write serve's long options without their dashes, one a line, as `listen 0.0.0.0:8080` (see eyedropper serve --help)",
                    status: 65)
            }
            guard name != "config" else {
                throw CommandFailure("--config \(path) line \(index + 1): a configuration file cannot name another", status: 65)
            }
            entries.append(Entry(line: index + 1, name: String(name), value: value.isEmpty ? nil : String(value)))
        }
        self.path = path
        self.entries = entries
    }

    /// The entries as arguments: `--name value`, `--name`.
    var arguments: [String] {
        entries.flatMap { entry in ["--" + entry.name] + (entry.value.map { [$0] } ?? []) }
    }

    /// `message`, a complaint about the arguments, with the line of this file it is about: the
    /// first entry whose option the message names.
    func locate(_ message: String) -> String {
        guard let entry = entries.first(where: { message.contains("'--\($0.name)") || message.contains("--\($0.name) ") })
        else { return message }
        return "\(message) (--config \(path) line \(entry.line): \(entry.name)\(entry.value.map { " " + $0 } ?? ""))"
    }

    /// The names of the options whose values differ between this file and `other`.
    func changedOptions(from other: ConfigurationFile) -> Set<String> {
        func values(_ file: ConfigurationFile) -> [String: [String?]] {
            Dictionary(grouping: file.entries, by: \.name).mapValues { $0.map(\.value) }
        }
        let (mine, theirs) = (values(self), values(other))
        return Set(mine.keys).union(theirs.keys).filter { mine[$0] != theirs[$0] }
    }

    /// `arguments` (a command line after the program's name) with the options of the file that
    /// `serve --config FILE` names put before the command's own; the file too, nil without one.
    static func expand(_ arguments: [String]) throws(CommandFailure) -> (arguments: [String], file: ConfigurationFile?) {
        guard arguments.first == "serve", let path = path(in: arguments.dropFirst()) else { return (arguments, nil) }
        let file = try ConfigurationFile(path: path)
        return (["serve"] + file.arguments + arguments.dropFirst(), file)
    }

    /// The value of `--config` among `arguments`, the last given.
    private static func path(in arguments: ArraySlice<String>) -> String? {
        var path: String?
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--" { break }
            if argument == "--config" {
                path = iterator.next()
            } else if argument.hasPrefix("--config=") {
                path = String(argument.dropFirst("--config=".count))
            }
        }
        return path
    }
}

extension Substring {
    /// Without the whitespace at either end.
    fileprivate var trimmingWhitespace: Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
