import ArgumentParser

/// Placeholder entry point replaced by the attendantctl work (see the issue); prints the interface name.
@main
struct Attendantctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "attendantctl", abstract: "Control attendantd.")
    func run() async throws {}
}
