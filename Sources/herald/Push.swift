import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer

/// `herald push`: sends one push to an APNs endpoint (Herald's or Apple's) and prints the answer.
struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one push to an APNs endpoint and print the answer as one JSON line.",
        discussion: """
            Prints {"status":…,"reason":…,"apns_id":…,"apns_unique_id":…} and exits with 0 when the \
            push was accepted (200), 1 otherwise. With --data, the key, key id, team id, URL, CA, topic \
            and device token default to that Herald data directory's demo setup.
            """
    )

    @Option(help: "The apns-topic header: the app's bundle id (plus the push type's suffix).")
    var topic: String?

    @Option(name: .customLong("device"), help: ArgumentHelp("The device token (hex).", valueName: "token"))
    var deviceToken: String?

    @Option(help: "The alert title.")
    var title: String?

    @Option(help: "The alert subtitle.")
    var subtitle: String?

    @Option(help: "The alert body.")
    var body: String?

    @Option(help: "The interruption level.")
    var level: InterruptionLevelArgument?

    @Option(
        name: .customLong("thread"), help: ArgumentHelp("The thread id that groups notifications.", valueName: "id"))
    var threadID: String?

    @Option(help: "The notification category (its actions).")
    var category: String?

    @Option(help: ArgumentHelp("The app badge; 0 clears it.", valueName: "n"))
    var badge: Int?

    @Option(
        help: ArgumentHelp(
            "A sound name, or `default`; with --level critical it plays at full volume.", valueName: "name"))
    var sound: String?

    @Option(
        help:
            "The apns-push-type header (alert, background, voip, …). `background` builds a content-available payload and defaults the priority to 5."
    )
    var pushType: String = "alert"

    @Option(help: "The apns-priority header: 10, 5 or 1.")
    var priority: Int?

    @Option(
        help: ArgumentHelp("The apns-expiration header: UNIX seconds; 0 = deliver now or never.", valueName: "seconds"))
    var expiration: Int64?

    @Option(
        help: ArgumentHelp(
            "The apns-collapse-id header: replaces an earlier notification with this id.", valueName: "id"))
    var collapseID: String?

    @Option(help: ArgumentHelp("The apns-id header (a UUID); APNs generates one when absent.", valueName: "uuid"))
    var apnsID: String?

    @Option(
        help: ArgumentHelp(
            "A file with the JSON payload to send as is, or - for stdin (instead of --title, --body, …).",
            valueName: "file"))
    var payload: String?

    @Option(help: ArgumentHelp("The .p8 file of the signing key.", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("The key id (the JWT kid).", valueName: "id"))
    var keyID: String?

    @Option(help: ArgumentHelp("The team id (the JWT iss).", valueName: "id"))
    var teamID: String?

    @Option(
        help: ArgumentHelp(
            "The APNs endpoint. Default: the data directory's TLS listener, else https://api.sandbox.push.apple.com.",
            valueName: "url"))
    var url: String?

    @Option(
        help: ArgumentHelp(
            "A PEM file of CA certificates to trust (default with --data: its tls/ca.pem).", valueName: "file"))
    var ca: String?

    @OptionGroup var data: DataDirectoryOption

    private var hasPayloadFlags: Bool {
        [title, subtitle, body, threadID, category, sound].contains { $0 != nil } || level != nil || badge != nil
    }

    func validate() throws {
        if payload != nil, hasPayloadFlags {
            throw ValidationError(
                "Use either --payload or the payload options (--title, --body, --badge, …), not both.")
        }
        if let badge, badge < 0 {
            throw ValidationError("--badge must be 0 or more.")
        }
        if let url, URL(string: url)?.host == nil {
            throw ValidationError("--url must look like https://host[:port], not \(url).")
        }
        guard data.path == nil else { return }
        var missing: [String] = []
        if topic == nil { missing.append("--topic") }
        if deviceToken == nil { missing.append("--device") }
        if key == nil { missing.append("--key") }
        if keyID == nil { missing.append("--key-id") }
        if teamID == nil { missing.append("--team-id") }
        if !missing.isEmpty {
            throw ValidationError(
                "Missing \(missing.joined(separator: ", ")): give them, or --data DIR to take them from a Herald data directory."
            )
        }
    }

    func run() async throws {
        let resolved = try resolve()
        let client = try APNsClient(baseURL: resolved.url, credentials: resolved.credentials, caFile: resolved.caFile)
        let result: Result<APNsPushResult, any Error>
        do {
            result = .success(try await client.send(resolved.push))
        } catch {
            result = .failure(error)
        }
        try await client.shutdown()
        switch result {
        case .success(let response):
            Console.printLine(response.jsonLine)
            if !response.isAccepted { throw ExitCode.failure }
        case .failure(let error):
            throw CommandFailure("No answer from \(resolved.url.absoluteString): \(error)")
        }
    }

    private func resolve() throws -> (url: URL, credentials: APNsCredentials, caFile: String?, push: APNsPush) {
        let directory = data.directory
        let demo = try directory?.requireDemo()
        let runtime = directory?.runtimeOrDefaults()

        guard let topic = topic ?? demo?.topic, let deviceToken = deviceToken ?? demo?.deviceToken,
            let keyPath = key ?? demo?.keyPath, let keyID = keyID ?? demo?.keyID, let teamID = teamID ?? demo?.teamID
        else { throw ValidationError("Missing --topic, --device, --key, --key-id or --team-id.") }

        let urlString = url ?? runtime?.apnsTLSURL ?? APNsClient.sandboxURL.absoluteString
        guard let url = URL(string: urlString) else { throw ValidationError("--url is not a URL: \(urlString)") }
        var caFile = ca
        if caFile == nil, let directory, url.scheme == "https",
            FileManager.default.fileExists(atPath: directory.authorityCertificateURL.path)
        {
            caFile = directory.authorityCertificateURL.path
        }
        let credentials = try APNsCredentials(
            teamID: teamID, keyID: keyID, privateKeyFile: URL(fileURLWithPath: keyPath))

        let push = APNsPush(
            deviceToken: deviceToken, topic: topic, payload: try payloadData(),
            pushType: pushType, priority: priority ?? (pushType == "background" ? 5 : nil),
            expiration: expiration, collapseID: collapseID, apnsID: apnsID
        )
        return (url, credentials, caFile, push)
    }

    private func payloadData() throws -> Data {
        guard let payload else {
            return AlertPayload(
                title: title, subtitle: subtitle, body: body, interruptionLevel: level?.level,
                threadID: threadID, category: category, badge: badge, sound: sound,
                isContentAvailable: pushType == "background"
            ).encoded()
        }
        do {
            if payload == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
            return try Data(contentsOf: URL(fileURLWithPath: payload))
        } catch {
            throw CommandFailure("Cannot read the payload file \(payload): \(error.localizedDescription)")
        }
    }
}

/// `--level`: the interruption levels by their APNs names.
enum InterruptionLevelArgument: String, CaseIterable, ExpressibleByArgument {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical

    var level: InterruptionLevel { InterruptionLevel(rawValue: rawValue)! }
}
