import ArgumentParser
import Foundation
import HeraldClient

/// `herald threads --device ID`: the device's list grouped by app and thread, as JSON.
struct ThreadsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "threads",
        abstract: "Print a device's notifications grouped by app and thread, with their summary lines (JSON).",
        discussion: "Groups follow the user's grouping preference; newest group first."
    )

    @Option(
        name: .customLong("device"), help: ArgumentHelp("The device id (default: the demo device).", valueName: "id"))
    var deviceID: String?

    @Option(help: ArgumentHelp("The number of groups, 1 to 500 (default 100).", valueName: "n"))
    var limit: Int?

    @OptionGroup var connection: UserConnection

    func validate() throws {
        if let limit, !(1...500).contains(limit) {
            throw ValidationError("--limit must be from 1 to 500, not \(limit).")
        }
        if let deviceID, deviceID.isEmpty { throw ValidationError("--device must not be empty.") }
    }

    func run() async throws {
        let deviceID = try DeviceStateCommand.device(deviceID, connection)
        try await connection.perform { try await $0.threads(deviceID: deviceID, limit: limit) }
    }
}

/// `herald badges --device ID`: the device's app badges and their total, as JSON.
struct BadgesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "badges", abstract: "Print a device's app badges and their total (JSON)."
    )

    @Option(
        name: .customLong("device"), help: ArgumentHelp("The device id (default: the demo device).", valueName: "id"))
    var deviceID: String?

    @OptionGroup var connection: UserConnection

    func validate() throws {
        if let deviceID, deviceID.isEmpty { throw ValidationError("--device must not be empty.") }
    }

    func run() async throws {
        let deviceID = try DeviceStateCommand.device(deviceID, connection)
        try await connection.perform { try await $0.badges(deviceID: deviceID) }
    }
}
