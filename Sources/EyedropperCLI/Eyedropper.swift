import ArgumentParser

@main
struct EyedropperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eyedropper",
        abstract: "Sample colours from camera frames, exactly.",
        subcommands: [Sample.self, Snapshot.self, Devices.self, Formats.self],
        defaultSubcommand: Sample.self
    )
}
