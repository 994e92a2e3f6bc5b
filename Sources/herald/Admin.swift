import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer

/// `herald admin`: the admin API from the command line.
struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Manage teams, keys, apps, users, devices, device tokens, app credentials, categories, localizations, icons, content extensions and service extensions through the admin API.",
        discussion: """
            Each command prints the API's JSON answer. On an API error it prints the error JSON to \
            stderr and exits with 1. With --data (default ./herald-data when it exists), the URL and \
            admin token come from that data directory.
            """,
        subcommands: [
            TeamCommand.self, KeyCommand.self, AppCommand.self, UserCommand.self,
            DeviceCommand.self, TokenCommand.self, AppCredentialCommand.self, ListCommand.self, CategoryCommand.self,
            LocalizationCommand.self, IconCommand.self, ContentExtensionCommand.self, ServiceExtensionCommand.self,
        ]
    )

    @OptionGroup var connection: AdminConnection
}

/// Where the admin API is and how to authenticate: `--url`, `--admin-token`, `--data`.
struct AdminConnection: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The JSON API's URL (default: the data directory's, else http://127.0.0.1:8080).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The admin token (default: the data directory's admin-token file).", valueName: "token"))
    var adminToken: String?

    @OptionGroup var data: DataDirectoryOption

    func validate() throws {
        if let url, URL(string: url)?.host == nil {
            throw ValidationError("--url must look like http://host[:port], not \(url).")
        }
        if adminToken == nil, data.directoryOrDefault == nil {
            throw ValidationError(
                "Missing --admin-token: give it, or --data DIR to read the data directory's admin-token file.")
        }
    }

    /// Calls the API with `call` and prints the answer; an API error goes to stderr as JSON, exit 1.
    func perform(_ call: (HeraldAPIClient) async throws -> Data) async throws {
        let directory = data.directoryOrDefault
        let token: String
        if let adminToken {
            token = adminToken
        } else if let stored = try directory?.readAdminToken() {
            token = stored
        } else {
            throw CommandFailure(
                "No admin token: give --admin-token, or start the server once so that it creates \(directory?.adminTokenURL.path ?? "admin-token")."
            )
        }
        let urlString = url ?? directory?.runtimeOrDefaults().apiURL ?? RuntimeInfo.defaults().apiURL
        guard let baseURL = URL(string: urlString) else { throw ValidationError("--url is not a URL: \(urlString)") }

        let client = try HeraldAPIClient(baseURL: baseURL, bearerToken: token)
        let result: Result<Data, any Error>
        do {
            result = .success(try await call(client))
        } catch {
            result = .failure(error)
        }
        try await client.shutdown()

        switch result {
        case .success(let body):
            let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { Console.printLine(text) }
        case .failure(let error as HeraldAPIError):
            Console.printError(error.jsonLine)
            throw ExitCode.failure
        case .failure(let error):
            Console.printError(
                OrderedJSONObject([
                    "error": .object([
                        "code": .string("connection_failed"),
                        "message": .string("No answer from \(urlString): \(error)"),
                    ])
                ]).jsonLine)
            throw ExitCode.failure
        }
    }
}

/// A leaf admin command: one API call.
protocol AdminAPICommand: AsyncParsableCommand {
    var connection: AdminConnection { get }
    func call(_ client: HeraldAPIClient) async throws -> Data
}

extension AdminAPICommand {
    func run() async throws {
        try await connection.perform(call)
    }
}

/// `herald admin list teams|apps|users|devices`.
struct ListCommand: AdminAPICommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List teams, apps, users or devices.")

    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case teams, apps, users, devices
    }

    @Argument(help: "What to list: teams, apps, users or devices.")
    var kind: Kind

    @OptionGroup var connection: AdminConnection

    func call(_ client: HeraldAPIClient) async throws -> Data {
        switch kind {
        case .teams: try await client.listTeams()
        case .apps: try await client.listApps()
        case .users: try await client.listUsers()
        case .devices: try await client.listDevices()
        }
    }
}
