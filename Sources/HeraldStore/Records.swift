import Foundation
import GRDB
import HeraldCore

// One record per table: it maps a row to and from the HeraldCore model it stores. Dates are stored as
// INTEGER milliseconds since 1970, so a value read back equals `Date.storedMilliseconds` rounding.

extension Date {
    /// The date in whole milliseconds since 1970, as the store keeps it.
    public var storedMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    /// The date a stored millisecond value stands for.
    public init(storedMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(storedMilliseconds) / 1000) }

    /// The date as it reads back from the store (rounded to the millisecond).
    public var roundedToStoredPrecision: Date { Date(storedMilliseconds: storedMilliseconds) }
}

struct TeamRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "teams"
    enum Columns { static let teamID = Column("team_id"), name = Column("name"), createdAt = Column("created_at") }

    var team: Team

    init(_ team: Team) { self.team = team }

    init(row: Row) throws {
        team = Team(
            teamID: try row.decode(forColumn: Columns.teamID),
            name: try row.decode(forColumn: Columns.name),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt))
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.teamID] = team.teamID
        container[Columns.name] = team.name
        container[Columns.createdAt] = team.createdAt.storedMilliseconds
    }
}

struct SigningKeyRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "signing_keys"
    enum Columns {
        static let keyID = Column("key_id"), teamID = Column("team_id"), topics = Column("topics")
        static let publicKeyPEM = Column("public_key_pem"), createdAt = Column("created_at")
    }

    var key: SigningKey

    init(_ key: SigningKey) { self.key = key }

    init(row: Row) throws {
        let topicsJSON: String? = try row.decode(forColumn: Columns.topics)
        key = SigningKey(
            keyID: try row.decode(forColumn: Columns.keyID),
            teamID: try row.decode(forColumn: Columns.teamID),
            topics: try topicsJSON.map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) },
            publicKeyPEM: try row.decode(forColumn: Columns.publicKeyPEM),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt))
        )
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.keyID] = key.keyID
        container[Columns.teamID] = key.teamID
        container[Columns.topics] = try key.topics.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        container[Columns.publicKeyPEM] = key.publicKeyPEM
        container[Columns.createdAt] = key.createdAt.storedMilliseconds
    }
}

struct AppRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "apps"
    enum Columns {
        static let bundleID = Column("bundle_id"), teamID = Column("team_id"), name = Column("name")
        static let timeSensitive = Column("time_sensitive"), criticalAlerts = Column("critical_alerts")
        static let communication = Column("communication"), createdAt = Column("created_at")
    }

    var app: App

    init(_ app: App) { self.app = app }

    init(row: Row) throws {
        app = App(
            bundleID: try row.decode(forColumn: Columns.bundleID),
            teamID: try row.decode(forColumn: Columns.teamID),
            name: try row.decode(forColumn: Columns.name),
            entitlements: Entitlements(
                timeSensitive: try row.decode(forColumn: Columns.timeSensitive),
                criticalAlerts: try row.decode(forColumn: Columns.criticalAlerts),
                communication: try row.decode(forColumn: Columns.communication)
            ),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt))
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.bundleID] = app.bundleID
        container[Columns.teamID] = app.teamID
        container[Columns.name] = app.name
        container[Columns.timeSensitive] = app.entitlements.timeSensitive
        container[Columns.criticalAlerts] = app.entitlements.criticalAlerts
        container[Columns.communication] = app.entitlements.communication
        container[Columns.createdAt] = app.createdAt.storedMilliseconds
    }
}

struct UserRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "users"
    enum Columns {
        static let userID = Column("user_id"), name = Column("name")
        static let tokenDigest = Column("token_digest"), createdAt = Column("created_at")
    }

    var user: User
    /// Only written; reading a user never loads its digest.
    var tokenDigest: String?

    init(_ user: User, tokenDigest: String) {
        self.user = user
        self.tokenDigest = tokenDigest
    }

    init(row: Row) throws {
        user = User(
            userID: try row.decode(forColumn: Columns.userID),
            name: try row.decode(forColumn: Columns.name),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt))
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.userID] = user.userID
        container[Columns.name] = user.name
        container[Columns.tokenDigest] = tokenDigest
        container[Columns.createdAt] = user.createdAt.storedMilliseconds
    }
}

struct DeviceRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "devices"
    enum Columns {
        static let deviceID = Column("device_id"), userID = Column("user_id")
        static let name = Column("name"), createdAt = Column("created_at")
    }

    var device: Device

    init(_ device: Device) { self.device = device }

    init(row: Row) throws {
        device = Device(
            deviceID: try row.decode(forColumn: Columns.deviceID),
            userID: try row.decode(forColumn: Columns.userID),
            name: try row.decode(forColumn: Columns.name),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt))
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.deviceID] = device.deviceID
        container[Columns.userID] = device.userID
        container[Columns.name] = device.name
        container[Columns.createdAt] = device.createdAt.storedMilliseconds
    }
}

struct DeviceTokenRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "device_tokens"
    enum Columns {
        static let token = Column("token"), deviceID = Column("device_id"), bundleID = Column("bundle_id")
        static let createdAt = Column("created_at"), unregisteredAt = Column("unregistered_at")
    }

    var record: DeviceTokenRecord

    init(_ record: DeviceTokenRecord) { self.record = record }

    init(row: Row) throws {
        let unregisteredAt: Int64? = try row.decode(forColumn: Columns.unregisteredAt)
        record = DeviceTokenRecord(
            token: try row.decode(forColumn: Columns.token),
            deviceID: try row.decode(forColumn: Columns.deviceID),
            bundleID: try row.decode(forColumn: Columns.bundleID),
            createdAt: Date(storedMilliseconds: try row.decode(forColumn: Columns.createdAt)),
            unregisteredAt: unregisteredAt.map(Date.init(storedMilliseconds:))
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.token] = record.token
        container[Columns.deviceID] = record.deviceID
        container[Columns.bundleID] = record.bundleID
        container[Columns.createdAt] = record.createdAt.storedMilliseconds
        container[Columns.unregisteredAt] = record.unregisteredAt?.storedMilliseconds
    }
}

/// An app's icon: an image's bytes and its MIME type (sniffed from the bytes when it was set).
public struct AppIconRecord: Hashable, Sendable {
    public var bundleID: String
    public var type: String
    public var data: Data
    public var updatedAt: Date

    public init(bundleID: String, type: String, data: Data, updatedAt: Date) {
        self.bundleID = bundleID
        self.type = type
        self.data = data
        self.updatedAt = updatedAt
    }
}

/// An app's web content extension: its options as JSON (categories, size ratio, flags; the API's
/// `ContentExtensionSettings`) and the HTML the expanded notification shows.
public struct ContentExtensionRecord: Hashable, Sendable {
    public var bundleID: String
    public var options: String
    public var html: String
    public var updatedAt: Date

    public init(bundleID: String, options: String, html: String, updatedAt: Date) {
        self.bundleID = bundleID
        self.options = options
        self.html = html
        self.updatedAt = updatedAt
    }
}
