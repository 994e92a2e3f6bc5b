import Foundation

/// How `herald serve` (and the tests) run Herald.
public struct HeraldConfiguration: Sendable {
    /// The data directory (database, tokens, certificates, keys, demo and runtime files).
    public var dataDirectory: String
    /// A PostgreSQL database (`postgres://…`, see `PostgresURL`) instead of the data directory's
    /// SQLite file: several Herald nodes share it. The data directory keeps the rest.
    public var databaseURL: String?
    public var host: String = "127.0.0.1"
    /// The JSON API port; 0 picks a free port.
    public var apiPort: Int = 8080
    /// The cleartext APNs port (h2c and HTTP/1.1); 0 picks a free port.
    public var apnsPort: Int = 2197
    /// The TLS APNs port; 0 picks a free port, nil turns the TLS listener off.
    public var apnsTLSPort: Int? = 2198
    /// Pushes per second per device; 0 turns the limit off.
    public var deviceRateLimit: Double = 0
    /// Whether a fresh data directory gets the demo setup (team, key, app, user, device, token).
    public var createsDemo: Bool = true
    /// The largest number of notifications committed in one transaction.
    public var maximumBatch: Int = 512
    /// Seconds an API connection may stay silent while sending a request or between requests.
    public var apiIdleTimeout: Double = 30
    /// Seconds between a WebSocket stream's pings; one unanswered for as long closes it (1001).
    public var webSocketPingInterval: Double = 30
    /// The most JSON API connections (live sessions included) open at once; nil: two fifths of the
    /// open-file limit (`APIDependencies.defaultMaximumConnections`).
    public var apiMaximumConnections: Int?
    /// Seconds a delivery waits for the foreground app's `willPresent` answer (then it is not presented).
    public var willPresentTimeout: Double = 2
    /// Seconds before the first retry of a failed webhook delivery (doubling each time, at most 15 minutes).
    public var webhookRetryBase: Double = 1
    /// The bytes each app's notification attachments may take together.
    public var attachmentQuota: Int = 1 << 30

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }
}
