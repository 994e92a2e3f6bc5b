import Crypto
import Foundation

/// A provider account.
public struct Team: Hashable, Sendable, Codable {
    /// The 10-character team id (the JWT `iss`).
    public var teamID: String
    public var name: String
    public var createdAt: Date

    public init(teamID: String, name: String, createdAt: Date) {
        self.teamID = teamID
        self.name = name
        self.createdAt = createdAt
    }

    /// Whether `id` is 10 uppercase letters or digits, as Apple's team and key ids are.
    public static func isValidIdentifier(_ id: String) -> Bool {
        id.utf8.count == 10 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) }
    }
}

/// A token-signing key of a team: team-scoped, or limited to a list of topics.
public struct SigningKey: Hashable, Sendable, Codable {
    /// The 10-character key id (the JWT `kid`).
    public var keyID: String
    public var teamID: String
    /// The topics (bundle ids) the key may push to; nil = every app of the team.
    public var topics: [String]?
    /// The public key, PEM (SubjectPublicKeyInfo).
    public var publicKeyPEM: String
    public var createdAt: Date

    public init(keyID: String, teamID: String, topics: [String]?, publicKeyPEM: String, createdAt: Date) {
        self.keyID = keyID
        self.teamID = teamID
        self.topics = topics
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
    }

    /// Whether the key may push to the app with `bundleID`.
    public func allows(bundleID: String) -> Bool {
        topics.map { $0.contains(bundleID) } ?? true
    }
}

/// What an app is entitled to.
public struct Entitlements: Hashable, Sendable, Codable {
    public var timeSensitive: Bool
    public var criticalAlerts: Bool
    public var communication: Bool

    public init(timeSensitive: Bool = false, criticalAlerts: Bool = false, communication: Bool = false) {
        self.timeSensitive = timeSensitive
        self.criticalAlerts = criticalAlerts
        self.communication = communication
    }
}

/// An app: its bundle id is its APNs topic.
public struct App: Hashable, Sendable, Codable {
    public var bundleID: String
    public var teamID: String
    public var name: String
    public var entitlements: Entitlements
    public var createdAt: Date

    public init(bundleID: String, teamID: String, name: String, entitlements: Entitlements, createdAt: Date) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.name = name
        self.entitlements = entitlements
        self.createdAt = createdAt
    }
}

/// A person who owns devices; authenticates to the device API with a bearer token.
public struct User: Hashable, Sendable, Codable {
    public var userID: String
    public var name: String
    public var createdAt: Date

    public init(userID: String, name: String, createdAt: Date) {
        self.userID = userID
        self.name = name
        self.createdAt = createdAt
    }
}

/// A device of a user; it holds one notification list.
public struct Device: Hashable, Sendable, Codable {
    public var deviceID: String
    public var userID: String
    public var name: String
    public var createdAt: Date

    public init(deviceID: String, userID: String, name: String, createdAt: Date) {
        self.deviceID = deviceID
        self.userID = userID
        self.name = name
        self.createdAt = createdAt
    }
}

/// A device token: one app on one device. Unregistering keeps it as a tombstone.
public struct DeviceTokenRecord: Hashable, Sendable, Codable {
    /// Lowercase hex.
    public var token: String
    public var deviceID: String
    public var bundleID: String
    public var createdAt: Date
    /// When the token was unregistered; pushes to it get 410 Unregistered with this time.
    public var unregisteredAt: Date?

    public init(token: String, deviceID: String, bundleID: String, createdAt: Date, unregisteredAt: Date? = nil) {
        self.token = token
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.createdAt = createdAt
        self.unregisteredAt = unregisteredAt
    }
}

/// What the APNs endpoint needs to know of the registry, held in memory: keys (with their parsed
/// public keys), apps and device tokens.
public struct RegistrySnapshot: Sendable {
    public private(set) var keys: [String: SigningKey] = [:]
    public private(set) var publicKeys: [String: P256.Signing.PublicKey] = [:]
    public private(set) var apps: [String: App] = [:]
    public private(set) var tokens: [String: DeviceTokenRecord] = [:]

    public init() {}

    public init(keys: [SigningKey], apps: [App], tokens: [DeviceTokenRecord]) {
        for key in keys { upsert(key) }
        for app in apps { upsert(app) }
        for token in tokens { upsert(token) }
    }

    public mutating func upsert(_ key: SigningKey) {
        keys[key.keyID] = key
        publicKeys[key.keyID] = try? P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)
    }

    public mutating func upsert(_ app: App) { apps[app.bundleID] = app }

    public mutating func upsert(_ token: DeviceTokenRecord) { tokens[token.token] = token }
}
