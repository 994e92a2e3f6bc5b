import HeraldCore

// The bodies of the admin routes. Keys are snake_case; absent optional values are written as null.

struct CreateTeamBody: Decodable {
    var teamID: String
    var name: String?
    enum CodingKeys: String, CodingKey {
        case teamID = "team_id"
        case name
    }
}

struct CreateKeyBody: Decodable {
    var teamID: String
    var keyID: String?
    var topics: [String]?
    var publicKeyPEM: String?
    enum CodingKeys: String, CodingKey {
        case teamID = "team_id"
        case keyID = "key_id"
        case topics
        case publicKeyPEM = "public_key_pem"
    }
}

struct CreateAppBody: Decodable {
    struct EntitlementsBody: Decodable {
        var timeSensitive: Bool?
        var criticalAlerts: Bool?
        var communication: Bool?
        enum CodingKeys: String, CodingKey {
            case timeSensitive = "time_sensitive"
            case criticalAlerts = "critical_alerts"
            case communication
        }
    }

    var bundleID: String
    var teamID: String
    var name: String?
    var entitlements: EntitlementsBody?
    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case teamID = "team_id"
        case name, entitlements
    }
}

struct CreateUserBody: Decodable {
    var name: String
}

struct CreateDeviceBody: Decodable {
    var userID: String
    var name: String?
    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case name
    }
}

struct CreateDeviceTokenBody: Decodable {
    var deviceID: String
    var bundleID: String
    var token: String?
    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id"
        case bundleID = "bundle_id"
        case token
    }
}

struct TeamJSON: Encodable {
    var team_id: String
    var name: String
    var created_at: String

    init(_ team: Team) {
        team_id = team.teamID
        name = team.name
        created_at = Timestamp.string(team.createdAt)
    }
}

struct TeamListJSON: Encodable {
    var teams: [TeamJSON]
}

struct KeyJSON: Encodable {
    var created: RegistryService.CreatedKey

    enum CodingKeys: String, CodingKey {
        case key_id, team_id, topics, public_key_pem, private_key_pem, key_path, created_at
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(created.key.keyID, forKey: .key_id)
        try container.encode(created.key.teamID, forKey: .team_id)
        try container.encode(created.key.topics, forKey: .topics)
        try container.encode(created.key.publicKeyPEM, forKey: .public_key_pem)
        try container.encodeIfPresent(created.privateKeyPEM, forKey: .private_key_pem)
        try container.encodeIfPresent(created.keyPath, forKey: .key_path)
        try container.encode(Timestamp.string(created.key.createdAt), forKey: .created_at)
    }
}

struct AppJSON: Encodable {
    struct EntitlementsJSON: Encodable {
        var time_sensitive: Bool
        var critical_alerts: Bool
        var communication: Bool
    }

    var bundle_id: String
    var team_id: String
    var name: String
    var entitlements: EntitlementsJSON
    var created_at: String

    init(_ app: App) {
        bundle_id = app.bundleID
        team_id = app.teamID
        name = app.name
        entitlements = EntitlementsJSON(
            time_sensitive: app.entitlements.timeSensitive,
            critical_alerts: app.entitlements.criticalAlerts,
            communication: app.entitlements.communication
        )
        created_at = Timestamp.string(app.createdAt)
    }
}

struct UserJSON: Encodable {
    var user_id: String
    var name: String
    var token: String
    var created_at: String

    init(_ created: RegistryService.CreatedUser) {
        user_id = created.user.userID
        name = created.user.name
        token = created.token
        created_at = Timestamp.string(created.user.createdAt)
    }
}

struct DeviceJSON: Encodable {
    var device_id: String
    var user_id: String
    var name: String
    var created_at: String

    init(_ device: Device) {
        device_id = device.deviceID
        user_id = device.userID
        name = device.name
        created_at = Timestamp.string(device.createdAt)
    }
}

struct DeviceTokenJSON: Encodable {
    var record: DeviceTokenRecord

    enum CodingKeys: String, CodingKey { case token, device_id, bundle_id, created_at, unregistered_at }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.token, forKey: .token)
        try container.encode(record.deviceID, forKey: .device_id)
        try container.encode(record.bundleID, forKey: .bundle_id)
        try container.encode(Timestamp.string(record.createdAt), forKey: .created_at)
        try container.encode(Timestamp.string(record.unregisteredAt), forKey: .unregistered_at)
    }
}
