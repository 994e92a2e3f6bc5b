import ArgumentParser
import Foundation
import HeraldDelivery
import HeraldPostgres
import HeraldServer
import Logging

/// `herald serve`: runs the APNs endpoint, the JSON API and the live streams.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run Herald: the APNs-compatible endpoint, the device notification lists and the live streams."
    )

    @Option(name: .long, help: "The data directory (database, admin token, certificates, keys).")
    var data: String = "./herald-data"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A PostgreSQL database instead of the data directory's SQLite file: postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require] or ?host=/socket/directory. Several nodes can share it (and the data directory).",
            valueName: "url"))
    var database: String?

    @Option(name: .long, help: "The address every listener binds to.")
    var host: String = "127.0.0.1"

    @Option(name: .customLong("api-port"), help: "The JSON API port (0 picks a free port).")
    var apiPort: Int = 8080

    @Option(
        name: .customLong("apns-port"),
        help: "The cleartext APNs port: HTTP/2 with prior knowledge and HTTP/1.1 (0 picks a free port).")
    var apnsPort: Int = 2197

    @Option(name: .customLong("apns-tls-port"), help: "The TLS APNs port (0 picks a free port).")
    var apnsTLSPort: Int = 2198

    @Flag(name: .customLong("no-tls"), help: "Don't start the TLS APNs listener.")
    var noTLS = false

    @Option(
        name: .customLong("device-rate-limit"), help: "Pushes per second per device before TooManyRequests (0 = off).")
    var deviceRateLimit: Double = 0

    @Option(
        name: .customLong("api-idle-timeout"),
        help: "Seconds a JSON API connection may stay silent in the middle of a request or between requests.")
    var apiIdleTimeout: Double = 30

    @Option(
        name: .customLong("websocket-ping-interval"),
        help: "Seconds between the pings a WebSocket stream sends its client; one unanswered for as long closes it.")
    var webSocketPingInterval: Double = 30

    @Option(
        name: .customLong("api-max-connections"),
        help: ArgumentHelp(
            "The most JSON API connections (live sessions included) open at once; by default two fifths of the open-file limit (`ulimit -n`). Past it a new connection is closed at once.",
            valueName: "n"))
    var apiMaxConnections: Int?

    @Option(
        name: .customLong("will-present-timeout"),
        help:
            "Seconds a notification waits for its foreground app's willPresent answer (its live connection); none in time: not presented."
    )
    var willPresentTimeout: Double = 2

    @Option(
        name: .customLong("attachment-quota-mb"),
        help: "MiB each app's notification attachments may take together (files under DATA/attachments).")
    var attachmentQuotaMiB: Int = 1024

    @Flag(name: .customLong("no-demo"), help: "Don't create the demo setup on a fresh data directory.")
    var noDemo = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    /// Which time the delivery policy follows.
    enum ClockMode: String, CaseIterable, ExpressibleByArgument {
        case system, manual
    }

    @Option(
        name: .customLong("clock"),
        help: ArgumentHelp(
            "system (the wall clock) or manual: time starts at the wall-clock time and moves only when told to (`herald clock set|advance`, the admin clock API), for testing Focus schedules and summary times without waiting.",
            valueName: "mode"
        )
    )
    var clock: ClockMode = .system

    func validate() throws {
        for (name, port) in [("--api-port", apiPort), ("--apns-port", apnsPort), ("--apns-tls-port", apnsTLSPort)]
        where !(0...65535).contains(port) {
            throw ValidationError("\(name) must be a port number from 0 to 65535.")
        }
        guard apiIdleTimeout > 0 else { throw ValidationError("--api-idle-timeout must be more than 0.") }
        guard webSocketPingInterval > 0 else { throw ValidationError("--websocket-ping-interval must be more than 0.") }
        if let apiMaxConnections, apiMaxConnections < 1 {
            throw ValidationError("--api-max-connections must be 1 or more.")
        }
        guard willPresentTimeout > 0, willPresentTimeout <= 60 else {
            throw ValidationError("--will-present-timeout must be more than 0 and at most 60.")
        }
        guard attachmentQuotaMiB >= 0 else { throw ValidationError("--attachment-quota-mb must be 0 or more.") }
        guard deviceRateLimit >= 0 else { throw ValidationError("--device-rate-limit must be 0 or more.") }
        if let database {
            do { _ = try PostgresURL(database) } catch { throw ValidationError("--database: \(error)") }
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
    }

    func run() async throws {
        var logger = Logger(label: "herald")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = HeraldConfiguration(dataDirectory: data)
        configuration.databaseURL = database
        configuration.host = host
        configuration.apiPort = apiPort
        configuration.apnsPort = apnsPort
        configuration.apnsTLSPort = noTLS ? nil : apnsTLSPort
        configuration.deviceRateLimit = deviceRateLimit
        configuration.createsDemo = !noDemo
        configuration.apiIdleTimeout = apiIdleTimeout
        configuration.webSocketPingInterval = webSocketPingInterval
        configuration.apiMaximumConnections = apiMaxConnections
        configuration.willPresentTimeout = willPresentTimeout
        configuration.attachmentQuota = attachmentQuotaMiB << 20
        let application: HeraldApplication
        switch clock {
        case .system:
            application = try await HeraldApplication.make(configuration: configuration, logger: logger)
        case .manual:
            let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            application = try await HeraldApplication.make(
                configuration: configuration, logger: logger, clock: ManualClock(now: start))
        }
        let banner = try ServeBanner(application: application)
        try await application.run { runtime in
            FileHandle.standardOutput.write(Data((banner.text(runtime: runtime) + "\n").utf8))
        }
    }
}

/// What `herald serve` prints once it listens: the URLs and a ready-to-paste push.
struct ServeBanner: Sendable {
    let dataPath: String
    let demo: DemoSetup?
    let providerToken: String?
    let caPath: String
    let isManualClock: Bool

    init(application: HeraldApplication) throws {
        dataPath = application.dataDirectory.root.path
        isManualClock = application.timeControl != nil
        demo = application.demo
        providerToken = try application.demoProviderToken()
        caPath = application.authority.authorityCertificateURL.path
    }

    func text(runtime: RuntimeInfo) -> String {
        var lines = [
            "Herald is running.",
            "  JSON API:             \(runtime.apiURL)   (OpenAPI: \(runtime.apiURL)/openapi.yaml)",
            "  APNs (h2c, HTTP/1.1): \(runtime.apnsURL)",
        ]
        if !runtime.apnsTLSURL.isEmpty {
            lines.append("  APNs (TLS, h2):       \(runtime.apnsTLSURL)   (CA: \(caPath))")
        }
        lines.append("  Data:                 \(dataPath)")
        if isManualClock {
            lines.append(
                "  Clock:                manual: moves only with `herald clock set|advance --data '\(dataPath)'`")
        }
        if let demo, let providerToken {
            let target = runtime.apnsTLSURL.isEmpty ? runtime.apnsURL : runtime.apnsTLSURL
            let http = runtime.apnsTLSURL.isEmpty ? "--http2-prior-knowledge" : "--http2 --cacert '\(caPath)'"
            lines += [
                "",
                "Open the demo device's notification center (signs in with the demo user's token):",
                "  \(runtime.apiURL)/app/#token=\(demo.userToken)&device=\(demo.deviceID)",
                "",
                "Push to the demo device (the JWT is valid for an hour):",
                "  curl \(http) -H 'apns-topic: \(demo.topic)' -H 'apns-push-type: alert' \\",
                "    -H 'authorization: bearer \(providerToken)' \\",
                "    -d '{\"aps\":{\"alert\":{\"title\":\"Hello\",\"body\":\"From Herald\"}}}' \\",
                "    \(target)/3/device/\(demo.deviceToken)",
                "",
                "Watch the demo device:",
                "  herald watch --data '\(dataPath)' --device \(demo.deviceID)",
                "  curl -N -H 'authorization: Bearer \(demo.userToken)' \(runtime.apiURL)/v1/devices/\(demo.deviceID)/stream",
            ]
        }
        return lines.joined(separator: "\n")
    }
}
