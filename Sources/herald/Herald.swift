import ArgumentParser

/// The `herald` command: a self-hosted APNs-compatible push server and per-device notification center.
@main
struct Herald: AsyncParsableCommand {
    /// Every subcommand, in the order `herald --help` lists them. Adding a command is one line here.
    static let subcommandTypes: [any ParsableCommand.Type] = [
        Serve.self,
        Migrate.self,
        Demo.self,
        Push.self,
        Watch.self,
        Explain.self,
        FocusCommand.self,
        SettingsCommand.self,
        DeviceStateCommand.self,
        ThreadsCommand.self,
        BadgesCommand.self,
        AuthorizeCommand.self,
        ClockCommand.self,
        Admin.self,
    ]

    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "A self-hosted APNs-compatible push server with a notification center per device.",
        discussion: """
            Start a server with `herald serve`, print its demo setup with `herald demo`, send a push \
            with `herald push` and watch it arrive with `herald watch`.
            """,
        subcommands: subcommandTypes
    )
}
