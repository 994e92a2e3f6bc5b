import Crypto
import Foundation
import HeraldCore

/// The whole APNs request as `PushValidator.validate` (HeraldCore) sees it: method, path, headers and
/// body, written as text:
///
///     POST /3/device/<token>
///     apns-topic: com.example.app
///     authorization: bearer $TOKEN
///
///     {"aps":{"alert":"hi"}}
///
/// `$TOKEN` in a header value stands for a provider token validly signed for the registry below (the
/// fuzzer cannot forge an ES256 signature; without it no input would get past authentication).
///
/// The property: the validator answers every request with an acceptance or exactly one of the APNs
/// reasons it documents (`docs/architecture.md`, "The APNs request rules"), with that reason's status;
/// it is pure — the same request and connection state give the same answer and the same new state —
/// and an authentication refusal leaves the connection's state as it was. An accepted push is what the
/// request said (topic, push type, token, body) and its body is a JSON payload within its size.
///
/// Why not "the store is unchanged": the validator is given no store. `PushService` returns the
/// refusal before anything is queued for the store (`writer.enqueue` runs only for an accepted push),
/// so a refusal cannot change the store; what the validator can change is the connection's provider
/// token state, and that is what this checks.
enum PushValidatorTarget {
    static let target = FuzzTarget(
        name: "push-validator",
        property: "PushValidator.validate: accept, or exactly one documented APNs reason with its status; "
            + "deterministic; an auth refusal leaves the connection's token state unchanged",
        check: run
    )

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let teamID = "TEAM000001"
    static let keyID = "KEY0000001"
    static let bundleID = "com.example.app"
    static let activeToken = String(repeating: "ab", count: 32)
    static let unregisteredToken = String(repeating: "cd", count: 32)
    static let otherAppToken = String(repeating: "ef", count: 32)

    /// A fixed P-256 key (the fuzz input, not the key, is what varies).
    static let privateKey = try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x2A, count: 32))

    static let registry: RegistrySnapshot = {
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let key = SigningKey(
            keyID: keyID, teamID: teamID, topics: nil, publicKeyPEM: privateKey.publicKey.pemRepresentation,
            createdAt: created)
        let apps = [
            App(bundleID: bundleID, teamID: teamID, name: "Example", entitlements: Entitlements(), createdAt: created),
            App(
                bundleID: "com.example.other", teamID: teamID, name: "Other", entitlements: Entitlements(),
                createdAt: created),
            App(
                bundleID: "com.elsewhere.app", teamID: "TEAM000002", name: "Elsewhere", entitlements: Entitlements(),
                createdAt: created),
        ]
        let tokens = [
            DeviceTokenRecord(token: activeToken, deviceID: "device-1", bundleID: bundleID, createdAt: created),
            DeviceTokenRecord(
                token: unregisteredToken, deviceID: "device-1", bundleID: bundleID, createdAt: created,
                unregisteredAt: Date(timeIntervalSince1970: 1_750_000_000)),
            DeviceTokenRecord(
                token: otherAppToken, deviceID: "device-2", bundleID: "com.example.other", createdAt: created),
        ]
        return RegistrySnapshot(keys: [key], apps: apps, tokens: tokens)
    }()

    /// A valid provider token, issued a minute before `now`.
    static let providerToken = try! ProviderToken.make(
        teamID: teamID, keyID: keyID, issuedAt: now.addingTimeInterval(-60), key: privateKey)

    /// The reasons the validator documents; any other answer is a bug.
    static let documentedReasons: Set<APNsReason> = [
        .methodNotAllowed, .badPath, .missingDeviceToken, .duplicateHeaders, .badMessageId,
        .missingProviderToken, .invalidProviderToken, .expiredProviderToken, .unrelatedKeyIdInToken,
        .tooManyProviderTokenUpdates, .missingTopic, .invalidPushType, .badPriority, .badExpirationDate,
        .badCollapseId, .badTopic, .topicDisallowed, .badDeviceToken, .deviceTokenNotForTopic, .unregistered,
        .payloadEmpty, .payloadTooLarge, .badPayload,
    ]

    static let authReasons: Set<APNsReason> = [
        .missingProviderToken, .invalidProviderToken, .expiredProviderToken, .unrelatedKeyIdInToken,
        .tooManyProviderTokenUpdates,
    ]

    /// The request an input describes.
    static func request(_ input: [UInt8]) -> APNsRequest {
        let separator = input.indices.first { input[$0] == 0x0A && $0 + 1 < input.count && input[$0 + 1] == 0x0A }
        let head = separator.map { Array(input[..<$0]) } ?? input
        let body = separator.map { Array(input[($0 + 2)...]) } ?? []
        var lines = String(decoding: head, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let method = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            headers.append(
                (
                    name: line[..<colon].lowercased(),
                    value: String(value).replacingOccurrences(of: "$TOKEN", with: providerToken)
                ))
        }
        return APNsRequest(
            method: String(method.first ?? ""), path: method.count > 1 ? String(method[1]) : "", headers: headers,
            body: body)
    }

    static func run(_ input: [UInt8]) throws {
        let request = request(input)
        var authenticated = ProviderAuthState()
        _ = authenticated.authenticate(authorization: "bearer \(providerToken)", registry: registry, now: now)
        for initial in [ProviderAuthState(), authenticated] {
            var first = initial
            let result = PushValidator.validate(request, auth: &first, registry: registry, apnsID: "id", now: now)
            var second = initial
            let again = PushValidator.validate(request, auth: &second, registry: registry, apnsID: "id", now: now)
            try require(
                summary(result) == summary(again), "two validations differ: \(summary(result)), \(summary(again))")
            try require(first.boundTeamID == second.boundTeamID, "two validations left different connection states")
            switch result {
            case .failure(let failure):
                try refused(request, failure, before: initial, after: first)
            case .success(let push):
                try accepted(request, push)
            }
        }
    }

    private static func summary(_ result: Result<AcceptedPush, APNsFailure>) -> String {
        switch result {
        case .failure(let failure): return "refused \(failure.reason) \(failure.timestamp.map(String.init) ?? "")"
        case .success(let push):
            return "accepted \(push.topic) \(push.pushType) \(push.priority) \(push.expiration) "
                + "\(push.collapseID ?? "-") \(push.token.token) \(push.rawPayload.count)"
        }
    }

    private static func refused(
        _ request: APNsRequest, _ failure: APNsFailure, before: ProviderAuthState, after: ProviderAuthState
    ) throws {
        try require(documentedReasons.contains(failure.reason), "undocumented reason \(failure.reason)")
        try require(
            (failure.reason == .unregistered) == (failure.timestamp != nil),
            "\(failure.reason) with timestamp \(String(describing: failure.timestamp))")
        if authReasons.contains(failure.reason) {
            try require(
                before.boundTeamID == after.boundTeamID, "\(failure.reason) changed the connection's bound team")
        }
        // The first rules, checked independently (on bytes, as APNs compares paths).
        let path = pathWithoutQuery(request)
        let prefix = Array("/3/device/".utf8)
        if request.method != "POST" {
            try require(failure.reason == .methodNotAllowed, "\(request.method) got \(failure.reason)")
        } else if !(path.starts(with: prefix) || path == prefix.dropLast()) {
            try require(failure.reason == .badPath, "path \(request.path) got \(failure.reason)")
        } else if path.count <= prefix.count {
            try require(failure.reason == .missingDeviceToken, "path \(request.path) got \(failure.reason)")
        }
    }

    private static func pathWithoutQuery(_ request: APNsRequest) -> [UInt8] {
        let bytes = Array(request.path.utf8)
        return Array(bytes.prefix { $0 != UInt8(ascii: "?") })
    }

    private static func accepted(_ request: APNsRequest, _ push: AcceptedPush) throws {
        try require(request.method == "POST", "accepted a \(request.method)")
        let path = pathWithoutQuery(request)
        try require(path.starts(with: Array("/3/device/".utf8)), "accepted path \(request.path)")
        let token = Substring(String(decoding: path.dropFirst("/3/device/".utf8.count), as: UTF8.self))
        try require(
            DeviceTokenFormat.isWellFormed(token) && token.lowercased() == push.token.token,
            "accepted token \(token) as \(push.token.token)")
        try require(push.token.unregisteredAt == nil, "accepted an unregistered token")
        try require(
            push.token.bundleID == push.app.bundleID, "token of \(push.token.bundleID) for \(push.app.bundleID)")
        try require(push.app.teamID == teamID, "accepted for another team's app")
        try require(request.header("apns-topic") == push.topic, "accepted topic \(push.topic)")
        if let type = request.header("apns-push-type") {
            try require(type == push.pushType.rawValue, "apns-push-type \(type) accepted as \(push.pushType)")
        }
        let names = request.headers.map(\.name)
        try require(Set(names).count == names.count, "accepted duplicate headers \(names)")
        if let id = request.header("apns-id") { try require(APNsID.isValid(id), "accepted apns-id \(id)") }
        try require((push.collapseID?.utf8.count ?? 0) <= 64, "accepted a collapse id over 64 bytes")
        try require(push.rawPayload == request.body, "the accepted payload is not the body sent")
        try require(
            !request.body.isEmpty && request.body.count <= push.pushType.maximumPayloadSize,
            "accepted a body of \(request.body.count) bytes")
        do {
            _ = try JSONParser.parse(request.body)
        } catch {
            throw PropertyViolation("accepted a body that is not JSON: \(error)")
        }
    }
}
