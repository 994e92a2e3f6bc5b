import Foundation
import HeraldCore

/// Errors the store reports to its callers; the API turns them into JSON errors.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case conflict, notFound, invalid }
    public let kind: Kind
    /// A sentence for the user; never contains tokens or payloads.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// Herald's storage: the registry (teams, keys, apps, users, devices, device tokens) and the
/// devices' notification lists with their change feed.
///
/// Implementations: `SQLiteStore` (GRDB, WAL) is the embedded default. Nothing in this protocol is
/// SQLite-specific, so a PostgreSQL implementation can share the test suite.
public protocol HeraldStore: Sendable {
    // MARK: Registry
    /// Everything the APNs endpoint validates against, loaded at start-up.
    func registrySnapshot() async throws -> RegistrySnapshot

    /// Adds a team; `conflict` when the team id exists.
    func createTeam(_ team: Team) async throws
    func teams() async throws -> [Team]
    /// Adds a signing key; `conflict` when the key id exists, `notFound` when the team doesn't.
    func createKey(_ key: SigningKey) async throws
    func keys() async throws -> [SigningKey]
    /// Adds an app; `conflict` when the bundle id exists, `notFound` when the team doesn't.
    func createApp(_ app: App) async throws
    func apps() async throws -> [App]
    /// Adds a user with the SHA-256 hex digest of its bearer token.
    func createUser(_ user: User, tokenDigest: String) async throws
    func users() async throws -> [User]
    /// The user whose bearer token has this SHA-256 hex digest.
    func user(tokenDigest: String) async throws -> User?
    /// Adds a device; `notFound` when the user doesn't exist.
    func createDevice(_ device: Device) async throws
    func device(id: String) async throws -> Device?
    func devices(userID: String?) async throws -> [Device]
    /// Registers a device token. A device has one live token per app: an earlier live token of the
    /// same device and app is unregistered (kept as a tombstone) in the same transaction; returns it.
    /// `conflict` when the token exists, `notFound` when the device or app doesn't.
    @discardableResult
    func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord?
    /// Unregisters a token (it stays as a tombstone); nil when unknown. Unregistering twice keeps the first time.
    func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord?
    func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord]

    // MARK: Notification lists
    /// Commits a batch of new notifications in ONE transaction (group commit) and returns every
    /// change it made, in `seq` order: tombstones of notifications replaced through a collapse id
    /// first, then each new row. A notification whose id is already in the device's list replaces
    /// that entry (a provider's retry does not duplicate it). Returns only after the data is durable.
    func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification]
    /// The device's changes after `cursor`, in `seq` order, tombstones included, undeliverable ones
    /// (expired before any session got them) left out.
    func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws -> [StoredNotification]
    /// The device's list (no tombstones, no undeliverable ones) after `cursor`, in `seq` order.
    func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws -> [StoredNotification]
    /// One notification of the device (no tombstones).
    func notification(deviceID: String, id: String) async throws -> StoredNotification?
    /// Marks a notification read (new seq); nil when there is no such notification.
    func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Marks a notification dismissed (new seq); nil when there is no such notification.
    func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Removes a notification, leaving a tombstone (new seq); nil when there is no such notification.
    func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Records that a session received every deliverable notification of the device up to `cursor`.
    func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws
    /// The largest `seq` so far (0 when empty).
    func latestCursor() async throws -> Int64

    /// Closes the database cleanly (checkpoint, release files).
    func close() async throws
}
