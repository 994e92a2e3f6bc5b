import Crypto
import Foundation
import HTTPTypes
import HeraldCore
import HeraldStore

/// The admin operations: each one validated, written to the store, then applied to the registry
/// cache so the APNs endpoint sees it at once. Errors are `APIError`s (what the admin API answers).
///
/// The admin API and the server's demo bootstrap both call these.
public struct RegistryService: Sendable {
    /// The store the registry is written to.
    public let store: any HeraldStore
    /// The APNs endpoint's in-memory registry, updated after each committed change.
    public let cache: RegistryCache
    /// The data directory; generated private keys go to `keys/AuthKey_<KEYID>.p8` inside it.
    public let dataDirectory: URL
    /// The clock.
    public let now: @Sendable () -> Date

    /// A service writing to `store` and applying each change to `cache`, keys under `dataDirectory`.
    public init(
        store: any HeraldStore, cache: RegistryCache, dataDirectory: URL,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.cache = cache
        self.dataDirectory = dataDirectory
        self.now = now
    }

    // MARK: Teams

    /// Adds a team. `teamID` is 10 uppercase letters or digits; `name` defaults to the id.
    public func createTeam(id teamID: String, name: String? = nil) async throws -> Team {
        guard Team.isValidIdentifier(teamID) else {
            throw APIError.invalidField("team_id", "must be 10 uppercase letters or digits.")
        }
        let team = Team(teamID: teamID, name: try Self.name(name, field: "name") ?? teamID, createdAt: now())
        try await mapStoreErrors(conflict: ("team_exists", "A team with this id exists.")) {
            try await store.createTeam(team)
        }
        return team
    }

    /// Every team.
    public func teams() async throws -> [Team] {
        try await store.teams()
    }

    // MARK: Apps

    /// Adds an app (its bundle id is its APNs topic) to an existing team.
    public func createApp(
        bundleID: String, teamID: String, name: String? = nil, entitlements: Entitlements = Entitlements()
    ) async throws -> App {
        guard Self.isValidBundleID(bundleID) else {
            throw APIError.invalidField(
                "bundle_id", "must be a reverse-DNS identifier of letters, digits, `-` and `.`.")
        }
        guard Team.isValidIdentifier(teamID) else {
            throw APIError.invalidField("team_id", "must be 10 uppercase letters or digits.")
        }
        let app = App(
            bundleID: bundleID, teamID: teamID, name: try Self.name(name, field: "name") ?? bundleID,
            entitlements: entitlements, createdAt: now()
        )
        try await mapStoreErrors(
            conflict: ("app_exists", "An app with this bundle id exists."),
            notFound: ("team_not_found", "There is no team with this id.")
        ) {
            try await store.createApp(app)
        }
        cache.update { $0.upsert(app) }
        return app
    }

    // MARK: Users and devices

    /// A user and its bearer token, which exists only here: the store keeps its SHA-256 digest.
    public struct CreatedUser: Hashable, Sendable {
        /// The user as stored.
        public var user: User
        /// The bearer token, in the clear: shown once, never stored.
        public var token: String
    }

    /// Adds a user with a fresh random bearer token.
    public func createUser(name: String) async throws -> CreatedUser {
        guard let name = try Self.name(name, field: "name") else { throw APIError.missingField("name") }
        var generator = SystemRandomNumberGenerator()
        let user = User(userID: Self.makeIdentifier(using: &generator), name: name, createdAt: now())
        let token = Self.makeBearerToken(using: &generator)
        try await mapStoreErrors(conflict: ("user_exists", "A user with this id exists.")) {
            try await store.createUser(user, tokenDigest: Self.tokenDigest(token))
        }
        return CreatedUser(user: user, token: token)
    }

    /// The user whose bearer token this is.
    public func user(bearerToken: String) async throws -> User? {
        try await store.user(tokenDigest: Self.tokenDigest(bearerToken))
    }

    /// Adds a device to an existing user; `name` defaults to "Device".
    public func createDevice(userID: String, name: String? = nil) async throws -> Device {
        guard !userID.isEmpty else { throw APIError.missingField("user_id") }
        var generator = SystemRandomNumberGenerator()
        let device = Device(
            deviceID: Self.makeIdentifier(using: &generator), userID: userID,
            name: try Self.name(name, field: "name") ?? "Device", createdAt: now()
        )
        try await mapStoreErrors(
            conflict: ("device_exists", "A device with this id exists."),
            notFound: ("user_not_found", "There is no user with this id.")
        ) {
            try await store.createDevice(device)
        }
        return device
    }

    /// The device with this id.
    public func device(id: String) async throws -> Device? {
        try await store.device(id: id)
    }

    // MARK: App credentials

    /// An app credential and its bearer token, which exists only here: the store keeps its digest.
    public struct CreatedAppCredential: Hashable, Sendable {
        public var record: AppCredentialRecord
        /// The bearer token, in the clear: shown once, never stored.
        public var credential: String
    }

    /// Issues a credential for one app on one device (what its `UNUserNotificationCenter` uses).
    public func createAppCredential(deviceID: String, bundleID: String) async throws -> CreatedAppCredential {
        guard !deviceID.isEmpty else { throw APIError.missingField("device_id") }
        guard !bundleID.isEmpty else { throw APIError.missingField("bundle_id") }
        guard let device = try await store.device(id: deviceID) else {
            throw APIError.notFound("device_not_found", "There is no device with this id.")
        }
        var generator = SystemRandomNumberGenerator()
        let credential = Self.makeBearerToken(using: &generator)
        let record = AppCredentialRecord(
            deviceID: deviceID, bundleID: bundleID, userID: device.userID, createdAt: now())
        try await mapStoreErrors(
            conflict: ("credential_exists", "Another credential has this token."),
            notFound: ("app_not_found", "There is no app with this bundle id.")
        ) {
            try await store.createAppCredential(record, tokenDigest: Self.tokenDigest(credential))
        }
        return CreatedAppCredential(record: record, credential: credential)
    }

    // MARK: Device tokens

    /// Registers a device token of an app on a device: `token` (even-length hex, stored
    /// lowercase) or a generated 64-hex-digit one. An earlier live token of the same device and
    /// app is unregistered.
    public func createDeviceToken(deviceID: String, bundleID: String, token: String? = nil) async throws
        -> DeviceTokenRecord
    {
        guard !deviceID.isEmpty else { throw APIError.missingField("device_id") }
        guard !bundleID.isEmpty else { throw APIError.missingField("bundle_id") }
        let canonical: String
        if let token {
            guard DeviceTokenFormat.isWellFormed(token[...]) else {
                throw APIError.invalidField("token", "must be an even number of hexadecimal digits (at most 400).")
            }
            canonical = DeviceTokenFormat.canonical(token[...])
        } else {
            var generator = SystemRandomNumberGenerator()
            canonical = DeviceTokenFormat.make(using: &generator)
        }
        guard try await store.device(id: deviceID) != nil else {
            throw APIError.notFound("device_not_found", "There is no device with this id.")
        }
        var appExists = cache.snapshot.apps[bundleID] != nil
        if !appExists { appExists = try await store.apps().contains { $0.bundleID == bundleID } }
        guard appExists else {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        let record = DeviceTokenRecord(token: canonical, deviceID: deviceID, bundleID: bundleID, createdAt: now())
        let replaced = try await mapStoreErrors(
            conflict: ("token_exists", "This device token is registered already."),
            notFound: ("not_found", "The device or the app does not exist.")
        ) {
            try await store.createDeviceToken(record)
        }
        cache.update { snapshot in
            if let replaced { snapshot.upsert(replaced) }
            snapshot.upsert(record)
        }
        return record
    }

    /// Unregisters a device token: pushes to it get 410 Unregistered from now on.
    public func unregisterDeviceToken(_ token: String) async throws -> DeviceTokenRecord {
        let canonical = DeviceTokenFormat.canonical(token[...])
        guard let record = try await store.unregisterDeviceToken(canonical, at: now()) else {
            throw APIError.notFound("token_not_found", "There is no device token like this.")
        }
        cache.update { $0.upsert(record) }
        return record
    }
}

extension RegistryService {
    /// The SHA-256 digest of a bearer token, as lowercase hex: what the store keeps.
    public static func tokenDigest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Runs a store write, turning the store's conflict and not-found errors into API errors.
    func mapStoreErrors<T>(
        conflict: (code: String, message: String),
        notFound: (code: String, message: String)? = nil,
        _ operation: () async throws -> T
    ) async throws -> T {
        do {
            return try await operation()
        } catch let error as StoreError {
            switch error.kind {
            case .conflict: throw APIError.conflict(conflict.code, conflict.message)
            case .notFound: throw APIError.notFound(notFound?.code ?? "not_found", notFound?.message ?? error.message)
            case .invalid: throw APIError(.badRequest, code: "invalid_request", message: error.message)
            }
        }
    }
}
