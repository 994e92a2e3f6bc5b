import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore

/// `herald admin service-extension set|show|remove`.
struct ServiceExtensionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-extension",
        abstract: "An app's notification service extension: what changes its mutable-content pushes before they show.",
        subcommands: [Set.self, Show.self, Remove.self])

    struct Set: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the app's extension: an executable Herald launches, or a webhook.",
            discussion: """
                An executable is a Swift program built against Herald's UserNotifications whose main.swift \
                is one line, NotificationService.main() (NotificationService being its \
                UNNotificationServiceExtension subclass). A webhook gets the push as JSON, signed as \
                Standard Webhooks sign with the "secret" printed here (shown once), and answers \
                {"payload": {…}} (with "attachments": [{"data": base64, …}] to attach files). From then on \
                the app's alert pushes with mutable-content: 1 go through it.
                """)

        @Option(help: ArgumentHelp("The app's bundle id.", valueName: "id"))
        var bundleID: String

        @Option(help: ArgumentHelp("The extension executable (made absolute).", valueName: "path"))
        var executable: String?

        @Option(name: .customLong("argument"), help: "An argument for the executable (repeatable).")
        var arguments: [String] = []

        @Option(help: ArgumentHelp("An http(s) URL to POST the push to instead.", valueName: "url"))
        var webhookURL: String?

        @Option(
            help: ArgumentHelp(
                "Its time per push, before serviceExtensionTimeWillExpire() (default 30).", valueName: "seconds"))
        var timeout: Double?

        @Option(help: ArgumentHelp("Resident memory a process may use (default 128).", valueName: "MiB"))
        var memoryLimit: Int?

        @Option(help: ArgumentHelp("How many run at once, one push each (default 2).", valueName: "n"))
        var processes: Int?

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard (executable == nil) != (webhookURL == nil) else {
                throw ValidationError("Give either --executable or --webhook-url.")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            var fields: [String: JSONValue] = [:]
            if let executable {
                let path = URL(fileURLWithPath: executable).standardizedFileURL.path
                fields["executable"] = .string(path)
                fields["arguments"] = .array(arguments.map(JSONValue.string))
            }
            if let webhookURL { fields["url"] = .string(webhookURL) }
            if let timeout { fields["timeout_seconds"] = .number(timeout) }
            if let memoryLimit { fields["memory_limit_mb"] = .number(Double(memoryLimit)) }
            if let processes { fields["processes"] = .number(Double(processes)) }
            return try await client.setServiceExtension(bundleID: bundleID, fields: fields)
        }
    }

    struct Show: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Show the app's extension.")

        @Option(help: ArgumentHelp("The app's bundle id.", valueName: "id"))
        var bundleID: String

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.serviceExtension(bundleID: bundleID)
        }
    }

    struct Remove: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Remove the app's extension.")

        @Option(help: ArgumentHelp("The app's bundle id.", valueName: "id"))
        var bundleID: String

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.removeServiceExtension(bundleID: bundleID)
            return Data(#"{"removed":true}"#.utf8)
        }
    }
}
