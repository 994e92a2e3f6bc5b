import Foundation

/// One request to the APNs endpoint, as the transport received it.
public struct APNsRequest: Sendable {
    public var method: String
    public var path: String
    /// Regular headers (no pseudo-headers), names lowercased, in arrival order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The first value of a header.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// When a notification stops being deliverable.
public enum PushExpiration: Hashable, Sendable {
    /// No `apns-expiration`: kept per policy.
    case none
    /// `apns-expiration: 0`: delivered only to sessions connected now, never stored for later.
    case immediately
    /// A UNIX time in seconds.
    case at(Int64)
}

/// A push that passed every APNs rule and may be stored.
public struct AcceptedPush: Sendable {
    public var apnsID: String
    public var topic: String
    public var pushType: PushType
    public var priority: APNsPriority
    public var expiration: PushExpiration
    public var collapseID: String?
    public var token: DeviceTokenRecord
    public var app: App
    public var payload: NotificationPayload
    /// The body exactly as the provider sent it.
    public var rawPayload: [UInt8]

    public init(
        apnsID: String, topic: String, pushType: PushType, priority: APNsPriority, expiration: PushExpiration,
        collapseID: String?, token: DeviceTokenRecord, app: App, payload: NotificationPayload, rawPayload: [UInt8]
    ) {
        self.apnsID = apnsID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.token = token
        self.app = app
        self.payload = payload
        self.rawPayload = rawPayload
    }
}

/// The APNs request rules, checked in the order documented in `docs/architecture.md`.
public enum PushValidator {
    /// Validates one request against the rules of the APNs provider API.
    /// - Parameters:
    ///   - auth: the connection's provider-token state; updated when a new token is accepted.
    ///   - apnsID: the id the response carries (the request's `apns-id` or a generated one).
    /// Whether a header name occurs twice. A push has a handful of headers: comparing them pairwise
    /// is cheaper than hashing each (a set is used for long lists).
    static func hasDuplicate(_ headers: [(name: String, value: String)]) -> Bool {
        if headers.count > 16 {
            var seen = Set<String>()
            return headers.contains { !seen.insert($0.name).inserted }
        }
        for (index, header) in headers.enumerated() where headers[..<index].contains(where: { $0.name == header.name })
        {
            return true
        }
        return false
    }

    /// The canonical device token in a request's path, when it is well formed: what to look for in
    /// the shared database after `badDeviceToken` (a token another node registered a moment ago).
    public static func wellFormedToken(in request: APNsRequest) -> String? {
        let path = request.path.utf8
        let pathWithoutQuery = path.firstIndex(of: UInt8(ascii: "?")).map { path[..<$0] } ?? path[...]
        guard pathWithoutQuery.starts(with: "/3/device/".utf8) else { return nil }
        let rawToken = Substring(pathWithoutQuery.dropFirst("/3/device/".utf8.count))
        guard DeviceTokenFormat.isWellFormed(rawToken) else { return nil }
        return DeviceTokenFormat.canonical(rawToken)
    }

    public static func validate(
        _ request: APNsRequest,
        auth: inout ProviderAuthState,
        registry: RegistrySnapshot,
        apnsID: String,
        now: Date
    ) -> Result<AcceptedPush, APNsFailure> {
        guard request.method == "POST" else { return .failure(APNsFailure(.methodNotAllowed)) }
        // On the UTF-8 view: a Character search of the path was a tenth of the validation.
        let path = request.path.utf8
        let pathWithoutQuery = path.firstIndex(of: UInt8(ascii: "?")).map { path[..<$0] } ?? path[...]
        guard pathWithoutQuery.starts(with: "/3/device/".utf8) || pathWithoutQuery.elementsEqual("/3/device".utf8)
        else {
            return .failure(APNsFailure(.badPath))
        }
        let rawToken = Substring(pathWithoutQuery.dropFirst("/3/device/".utf8.count))
        guard !rawToken.isEmpty else { return .failure(APNsFailure(.missingDeviceToken)) }
        guard !rawToken.utf8.contains(UInt8(ascii: "/")) else { return .failure(APNsFailure(.badPath)) }
        if Self.hasDuplicate(request.headers) { return .failure(APNsFailure(.duplicateHeaders)) }
        if let id = request.header("apns-id"), !APNsID.isValid(id) {
            return .failure(APNsFailure(.badMessageId))
        }

        let claims: ProviderTokenClaims
        switch auth.authenticate(authorization: request.header("authorization"), registry: registry, now: now) {
        case .success(let value): claims = value
        case .failure(let failure): return .failure(failure)
        }

        guard let topic = request.header("apns-topic"), !topic.isEmpty else {
            return .failure(APNsFailure(.missingTopic))
        }
        let pushType: PushType
        if let rawType = request.header("apns-push-type") {
            guard let value = PushType(rawValue: rawType) else { return .failure(APNsFailure(.invalidPushType)) }
            pushType = value
        } else {
            pushType = Self.inferredPushType(topic: topic)
        }
        var priority = pushType == .background ? APNsPriority.considerPower : .immediately
        if let rawPriority = request.header("apns-priority") {
            guard let number = Int(rawPriority), let value = APNsPriority(rawValue: number) else {
                return .failure(APNsFailure(.badPriority))
            }
            priority = value
        }
        if pushType == .background, priority != .considerPower { return .failure(APNsFailure(.badPriority)) }

        var expiration = PushExpiration.none
        if let rawExpiration = request.header("apns-expiration") {
            guard let seconds = Int64(rawExpiration), seconds >= 0 else {
                return .failure(APNsFailure(.badExpirationDate))
            }
            expiration = seconds == 0 ? .immediately : .at(seconds)
        }
        let collapseID = request.header("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return .failure(APNsFailure(.badCollapseId)) }

        guard let bundleID = pushType.bundleID(fromTopic: topic), let app = registry.apps[bundleID] else {
            return .failure(APNsFailure(.badTopic))
        }
        guard app.teamID == claims.teamID else { return .failure(APNsFailure(.topicDisallowed)) }
        guard registry.keys[claims.keyID]?.allows(bundleID: bundleID) ?? false else {
            return .failure(APNsFailure(.invalidProviderToken))
        }

        guard DeviceTokenFormat.isWellFormed(rawToken) else { return .failure(APNsFailure(.badDeviceToken)) }
        guard let token = registry.tokens[DeviceTokenFormat.canonical(rawToken)] else {
            return .failure(APNsFailure(.badDeviceToken))
        }
        guard token.bundleID == bundleID else { return .failure(APNsFailure(.deviceTokenNotForTopic)) }
        if let unregisteredAt = token.unregisteredAt {
            return .failure(APNsFailure(.unregistered, timestamp: Int64(unregisteredAt.timeIntervalSince1970 * 1000)))
        }

        guard !request.body.isEmpty else { return .failure(APNsFailure(.payloadEmpty)) }
        guard request.body.count <= pushType.maximumPayloadSize else { return .failure(APNsFailure(.payloadTooLarge)) }
        let payload: NotificationPayload
        do {
            payload = try NotificationPayload(json: request.body, requiresAPS: pushType.requiresAPS)
        } catch {
            return .failure(APNsFailure(.badPayload))
        }

        return .success(
            AcceptedPush(
                apnsID: apnsID,
                topic: topic,
                pushType: pushType,
                priority: priority,
                expiration: expiration,
                collapseID: collapseID,
                token: token,
                app: app,
                payload: payload,
                rawPayload: request.body
            ))
    }

    /// The push type APNs assumes when the header is missing: from the topic's suffix, else alert.
    static func inferredPushType(topic: String) -> PushType {
        for type in PushType.allCases where !type.topicSuffix.isEmpty && topic.hasSuffix(type.topicSuffix) {
            // `.voip-ptt` also ends differently from `.voip`, so suffixes don't shadow each other.
            return type
        }
        return .alert
    }
}
