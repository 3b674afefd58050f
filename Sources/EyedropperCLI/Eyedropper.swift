import ArgumentParser

@main
struct EyedropperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eyedropper",
        abstract: "Sample colours from camera frames, exactly.",
        subcommands: [Sample.self, Snapshot.self, Devices.self, Formats.self, Serve.self],
        defaultSubcommand: Sample.self
    )
}
