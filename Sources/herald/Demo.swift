import ArgumentParser
import Foundation
import HeraldClient
import HeraldCore
import HeraldServer

/// `herald demo`: the demo setup of a data directory, as JSON for scripts or as ready-to-paste commands.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the demo setup of a data directory: ids, tokens, URLs and ready-to-paste commands.",
        discussion: """
            `herald serve` creates the demo setup (a team, key, app, user, device and device token) in a \
            fresh data directory. --json prints exactly: team_id, key_id, key_path, topic, device_token, \
            device_id, user_token, admin_token, api_url, apns_url, apns_tls_url, ca_path. URLs come from \
            runtime.json while a server runs, otherwise from the default ports.
            """
    )

    @Option(
        name: .customLong("data"),
        help: ArgumentHelp("The Herald data directory.", valueName: "dir")
    )
    var path: String = DataDirectory.defaultPath

    @Flag(help: "Print one JSON object instead of a summary.")
    var json = false

    func run() async throws {
        let directory = DataDirectory(path: path)
        let demo = try directory.requireDemo()
        let runtime = directory.runtimeOrDefaults()
        let adminToken = try directory.readAdminToken()
        let caPath = directory.authorityCertificateURL.path

        if json {
            Console.printLine(
                OrderedJSONObject([
                    "team_id": .string(demo.teamID),
                    "key_id": .string(demo.keyID),
                    "key_path": .string(demo.keyPath),
                    "topic": .string(demo.topic),
                    "device_token": .string(demo.deviceToken),
                    "device_id": .string(demo.deviceID),
                    "user_token": .string(demo.userToken),
                    "admin_token": .string(orNull: adminToken),
                    "api_url": .string(runtime.apiURL),
                    "apns_url": .string(runtime.apnsURL),
                    "apns_tls_url": .string(runtime.apnsTLSURL),
                    "ca_path": .string(caPath),
                ]).jsonLine)
            return
        }
        Console.printLine(
            try summary(demo: demo, runtime: runtime, adminToken: adminToken, caPath: caPath, directory: directory))
    }

    private func summary(
        demo: DemoSetup, runtime: RuntimeInfo, adminToken: String?, caPath: String, directory: DataDirectory
    ) throws -> String {
        let credentials = try APNsCredentials(
            teamID: demo.teamID, keyID: demo.keyID, privateKeyFile: URL(fileURLWithPath: demo.keyPath))
        let jwt = try credentials.makeToken(issuedAt: Date())
        let payload = AlertPayload(title: "Hello", body: "from Herald").encoded()
        let data = shellQuoted(directory.root.path)
        let running = (try? directory.readRuntime()) != nil
        return """
            Herald demo setup (\(directory.root.path))\(running ? "" : " — no server running; URLs are the defaults")
              team id       \(demo.teamID)
              key id        \(demo.keyID)   \(demo.keyPath)
              topic         \(demo.topic)
              device token  \(demo.deviceToken)
              device id     \(demo.deviceID)
              user token    \(demo.userToken)
              admin token   \(adminToken ?? "(not created yet)")
              API           \(runtime.apiURL)
              APNs          \(runtime.apnsTLSURL) (TLS, CA \(caPath))   \(runtime.apnsURL) (cleartext)

            Send a push:
              herald push --data \(data) --title Hello --body 'from Herald'

            Watch the device's notifications arrive:
              herald watch --data \(data)

            The same push with curl (the provider token is valid for one hour):
              curl --http2 --cacert \(shellQuoted(caPath)) \\
                -H 'apns-topic: \(demo.topic)' -H 'apns-push-type: alert' \\
                -H 'authorization: bearer \(jwt)' \\
                --data \(shellQuoted(String(decoding: payload, as: UTF8.self))) \\
                \(runtime.apnsTLSURL)/3/device/\(demo.deviceToken)
            """
    }
}
