import AttendantCLI

await Attendantctl.main(arguments: Array(CommandLine.arguments.dropFirst()))
