import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore

/// `herald admin team add|list`.
struct TeamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "team", abstract: "Provider teams.", subcommands: [Add.self, List.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Create a team.")

        @Option(help: ArgumentHelp("The 10-character team id (uppercase letters and digits).", valueName: "id"))
        var teamID: String

        @Option(help: "The team's name.")
        var name: String

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            guard Team.isValidIdentifier(teamID) else {
                throw ValidationError("--team-id must be 10 uppercase letters or digits, like ABCDE12345.")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.createTeam(teamID: teamID, name: name)
        }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the teams.")
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.listTeams() }
    }
}

/// `herald admin key add`.
struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Token-signing keys of teams.", subcommands: [Add.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Register a signing key; without --public-key Herald generates one and prints its private key and .p8 path."
        )

        @Option(help: ArgumentHelp("The team the key belongs to.", valueName: "id"))
        var teamID: String

        @Option(help: ArgumentHelp("The 10-character key id (default: Herald picks one).", valueName: "id"))
        var keyID: String?

        @Option(
            name: .customLong("topic"),
            help: ArgumentHelp(
                "Limit the key to this topic (bundle id); repeat for more. Default: every app of the team.",
                valueName: "bundle-id"))
        var topics: [String] = []

        @Option(
            help: ArgumentHelp(
                "A PEM file with the P-256 public key (or the .p8 private key to derive it from).", valueName: "file"))
        var publicKey: String?

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            if let keyID, !Team.isValidIdentifier(keyID) {
                throw ValidationError("--key-id must be 10 uppercase letters or digits, like ABC123DEFG.")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            var publicKeyPEM: String?
            if let publicKey {
                let pem: String
                do {
                    pem = try String(contentsOf: URL(fileURLWithPath: publicKey), encoding: .utf8)
                } catch {
                    throw CommandFailure("Cannot read \(publicKey): \(error.localizedDescription)")
                }
                publicKeyPEM = try APNsCredentials.publicKeyPEM(fromPEM: pem)
            }
            return try await client.createKey(
                teamID: teamID, keyID: keyID, topics: topics.isEmpty ? nil : topics, publicKeyPEM: publicKeyPEM
            )
        }
    }
}

/// `herald admin app add|list`.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Apps (a bundle id is an APNs topic).", subcommands: [Add.self, List.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Register an app of a team.")

        @Option(help: ArgumentHelp("The app's bundle id, its APNs topic.", valueName: "id"))
        var bundleID: String

        @Option(help: ArgumentHelp("The team the app belongs to.", valueName: "id"))
        var teamID: String

        @Option(help: "The app's display name (default: the bundle id).")
        var name: String?

        @Flag(help: "Entitle the app to time-sensitive notifications.")
        var timeSensitive = false

        @Flag(help: "Entitle the app to critical alerts.")
        var criticalAlerts = false

        @Flag(help: "Entitle the app to communication notifications.")
        var communication = false

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.createApp(
                bundleID: bundleID, teamID: teamID, name: name,
                entitlements: Entitlements(
                    timeSensitive: timeSensitive, criticalAlerts: criticalAlerts, communication: communication)
            )
        }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the apps.")
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.listApps() }
    }
}

/// `herald admin user add|list`.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Users (they own devices).", subcommands: [Add.self, List.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Create a user; prints the user's bearer token.")

        @Option(help: "The user's name.")
        var name: String

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.createUser(name: name) }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the users.")
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.listUsers() }
    }
}

/// `herald admin device add|list`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Devices of users.", subcommands: [Add.self, List.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "Add a device to a user.")

        @Option(help: ArgumentHelp("The user who owns the device.", valueName: "id"))
        var userID: String

        @Option(help: "The device's name.")
        var name: String?

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.createDevice(userID: userID, name: name)
        }
    }

    struct List: AdminAPICommand {
        static let configuration = CommandConfiguration(abstract: "List the devices.")
        @OptionGroup var connection: AdminConnection
        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.listDevices() }
    }
}

/// `herald admin token add|remove`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Device tokens (one app on one device).", subcommands: [Add.self, Remove.self]
    )

    struct Add: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Register a device token; prints it as JSON with \"token\".")

        @Option(help: ArgumentHelp("The device the app runs on.", valueName: "id"))
        var deviceID: String

        @Option(help: ArgumentHelp("The app's bundle id.", valueName: "id"))
        var bundleID: String

        @Option(
            help: ArgumentHelp("The token (even-length hex; default: Herald generates 32 bytes).", valueName: "hex"))
        var token: String?

        @OptionGroup var connection: AdminConnection

        func validate() throws {
            if let token, !DeviceTokenFormat.isWellFormed(Substring(token)) {
                throw ValidationError("--token must be an even number of hex digits.")
            }
        }

        func call(_ client: HeraldAPIClient) async throws -> Data {
            try await client.createDeviceToken(deviceID: deviceID, bundleID: bundleID, token: token)
        }
    }

    struct Remove: AdminAPICommand {
        static let configuration = CommandConfiguration(
            abstract: "Unregister a device token: pushes to it get 410 Unregistered.")

        @Argument(help: "The device token to unregister.")
        var token: String

        @OptionGroup var connection: AdminConnection

        func call(_ client: HeraldAPIClient) async throws -> Data { try await client.removeDeviceToken(token) }
    }
}

struct AppCredentialCommand: AdminAPICommand {
    static let configuration = CommandConfiguration(
        commandName: "app-credential",
        abstract: "Issue a credential for one app on one device; prints it as JSON with \"credential\".",
        discussion: """
            The credential is what the app's UNUserNotificationCenter uses (HERALD_APP_CREDENTIAL): it \
            reaches only that app's requests, notifications, badge, categories and settings on that \
            device. It is shown once.
            """)

    @Option(help: ArgumentHelp("The device the app runs on.", valueName: "id"))
    var deviceID: String

    @Option(help: ArgumentHelp("The app's bundle id.", valueName: "id"))
    var bundleID: String

    @OptionGroup var connection: AdminConnection

    func call(_ client: HeraldAPIClient) async throws -> Data {
        try await client.createAppCredential(deviceID: deviceID, bundleID: bundleID)
    }
}
