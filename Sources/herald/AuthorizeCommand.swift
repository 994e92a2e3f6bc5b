import ArgumentParser
import Foundation
import HeraldClient

/// `herald authorize`: the person's side of `requestAuthorization` — list the apps asking, allow or
/// deny one.
struct AuthorizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorize",
        abstract: "List the apps asking for permission on a device, or allow or deny one (JSON).",
        discussion: """
            Without a request id it prints the device's pending authorization requests. With one, \
            --allow or --deny answers it: the app's requestAuthorization call returns the answer, and \
            the app's settings become what it asked for (allowed) or denied.
            """
    )

    @Argument(help: ArgumentHelp("The request to answer (from the list).", valueName: "request-id"))
    var requestID: String?

    @Flag(help: "Allow the app's notifications.")
    var allow = false

    @Flag(help: "Deny the app's notifications.")
    var deny = false

    @Option(
        name: .customLong("device"), help: ArgumentHelp("The device id (default: the demo device).", valueName: "id"))
    var deviceID: String?

    @OptionGroup var connection: UserConnection

    func validate() throws {
        if allow && deny { throw ValidationError("--allow and --deny exclude each other.") }
        if requestID != nil && !allow && !deny { throw ValidationError("Answer the request with --allow or --deny.") }
        if requestID == nil && (allow || deny) { throw ValidationError("--allow and --deny need a request id.") }
        if let deviceID, deviceID.isEmpty { throw ValidationError("--device must not be empty.") }
    }

    func run() async throws {
        let deviceID = try DeviceStateCommand.device(deviceID, connection)
        if let requestID {
            try await connection.perform {
                try await $0.answerAuthorizationRequest(deviceID: deviceID, requestID: requestID, allow: allow)
            }
        } else {
            try await connection.perform { try await $0.authorizationRequests(deviceID: deviceID) }
        }
    }
}
