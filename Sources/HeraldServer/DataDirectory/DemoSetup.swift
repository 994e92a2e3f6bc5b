import Foundation

/// The demo setup a fresh data directory gets (`demo.json`): one team, key, app, user, device and
/// device token, enough to send a push and watch it arrive.
public struct DemoSetup: Hashable, Sendable, Codable {
    /// The demo team's 10-character id (the JWT `iss`).
    public var teamID: String
    /// The demo key's 10-character id (the JWT `kid`).
    public var keyID: String
    /// The path of the demo key's `.p8` file.
    public var keyPath: String
    /// The demo app's bundle id, its APNs topic.
    public var topic: String
    /// The device token of the demo app on the demo device (hex).
    public var deviceToken: String
    /// The demo device's id in the device API.
    public var deviceID: String
    /// The demo user's bearer token for the device API.
    public var userToken: String

    /// A demo setup from its parts.
    public init(
        teamID: String, keyID: String, keyPath: String, topic: String,
        deviceToken: String, deviceID: String, userToken: String
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.topic = topic
        self.deviceToken = deviceToken
        self.deviceID = deviceID
        self.userToken = userToken
    }

    enum CodingKeys: String, CodingKey {
        case teamID = "team_id"
        case keyID = "key_id"
        case keyPath = "key_path"
        case topic
        case deviceToken = "device_token"
        case deviceID = "device_id"
        case userToken = "user_token"
    }
}

/// What a running server writes to `runtime.json` once it listens.
public struct RuntimeInfo: Hashable, Sendable, Codable {
    /// The JSON API, e.g. `http://127.0.0.1:8080`.
    public var apiURL: String
    /// The cleartext APNs listener (h2c and HTTP/1.1), e.g. `http://127.0.0.1:2197`.
    public var apnsURL: String
    /// The TLS APNs listener, e.g. `https://127.0.0.1:2198`.
    public var apnsTLSURL: String
    /// The server's process id.
    public var pid: Int32

    /// Runtime information from its parts.
    public init(apiURL: String, apnsURL: String, apnsTLSURL: String, pid: Int32) {
        self.apiURL = apiURL
        self.apnsURL = apnsURL
        self.apnsTLSURL = apnsTLSURL
        self.pid = pid
    }

    /// The URLs a server on the default ports of `127.0.0.1` has.
    public static func defaults(pid: Int32 = 0) -> RuntimeInfo {
        RuntimeInfo(
            apiURL: "http://127.0.0.1:8080", apnsURL: "http://127.0.0.1:2197",
            apnsTLSURL: "https://127.0.0.1:2198", pid: pid
        )
    }

    enum CodingKeys: String, CodingKey {
        case apiURL = "api_url"
        case apnsURL = "apns_url"
        case apnsTLSURL = "apns_tls_url"
        case pid
    }
}
