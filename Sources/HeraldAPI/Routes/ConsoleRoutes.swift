import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Hummingbird

/// The push console (the web notification center's "Push" panel, like Apple's push console):
/// - `POST /v1/console/push` (a user token): a push as a provider sends it — the device token, the
///   headers (`apns-topic`, `apns-push-type`, …, and `authorization: bearer <provider token>`) and
///   the payload's text — handed to the same `PushHandler` the APNs listener hands its requests to,
///   as a request of a new provider connection. The answer is APNs's: status, `apns-id`,
///   `apns-unique-id`, the reason and timestamp of a refusal. The console adds no power: the push
///   needs a provider token the APNs endpoint accepts.
/// - `GET /v1/console/pushes/{apns_id}`: the delivery log of one push on the user's own devices —
///   the notification, its decision with reasons, and what happened to it since (received, decided,
///   delivered to a session, released from a Focus or summary, read, dismissed, removed).
/// - `GET /v1/me/devices`: the user's devices with their registered device tokens (the console's
///   targets).
struct ConsoleRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.post, "/v1/console/push", push),
            APIRoute(.get, "/v1/console/pushes/{apns_id}", log),
            APIRoute(.get, "/v1/me/devices", devices),
        ]
    }

    /// A push as the console sends it: what a provider's HTTP/2 request carries.
    struct ConsolePush: Hashable {
        var deviceToken: String
        /// Header names lowercased, in the order given.
        var headers: [Header]
        var payload: String

        struct Header: Hashable {
            var name: String
            var value: String
        }

        var request: APNsRequest {
            APNsRequest(
                method: "POST", path: "/3/device/\(deviceToken)", headers: headers.map { ($0.name, $0.value) },
                body: Array(payload.utf8))
        }
    }

    /// At most this many headers (APNs's own are 8, with `authorization`).
    static let maximumHeaders = 32

    /// Reads the body of `POST /v1/console/push`: `device_token` (the path's token, as a provider
    /// would put it there), `headers` (an object of strings) and `payload` (the body's text, sent
    /// as it is — also when it is not valid JSON, for APNs to refuse).
    static func consolePush(_ fields: JSONFields) throws -> ConsolePush {
        try fields.allowOnly(["device_token", "headers", "payload"])
        guard let token = try fields.string("device_token") else { throw APIError.missingField("device_token") }
        guard !token.isEmpty, token.utf8.count <= 200, token.unicodeScalars.allSatisfy(Self.isPathCharacter) else {
            throw APIError.invalidField(
                "device_token", "must be letters and digits (a hexadecimal device token), at most 200 characters.")
        }
        guard let payload = try fields.string("payload") else { throw APIError.missingField("payload") }
        var headers: [ConsolePush.Header] = []
        if let object = try fields.fields("headers") {
            guard object.object.count <= maximumHeaders else {
                throw APIError.invalidField("headers", "may name at most \(maximumHeaders) headers.")
            }
            for name in object.object.keys.sorted() {
                let lowered = name.lowercased()
                guard !lowered.isEmpty, lowered.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
                    throw APIError.invalidField(
                        "headers", "has a name that is not an HTTP header name: \(name.debugDescription).")
                }
                guard !headers.contains(where: { $0.name == lowered }) else {
                    throw APIError.invalidField("headers", "names \(lowered) twice.")
                }
                guard let value = object.object[name]?.stringValue else {
                    throw APIError.invalidField("headers.\(name)", "must be a string.")
                }
                guard value.utf8.count <= 8192,
                    !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else {
                    throw APIError.invalidField("headers.\(name)", "must be one line of at most 8192 bytes.")
                }
                headers.append(.init(name: lowered, value: value))
            }
        }
        return ConsolePush(deviceToken: token, headers: headers, payload: payload)
    }

    static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_")
    }

    /// RFC 9110's token characters (a header's name).
    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        return CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
    }

    @Sendable func push(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        let push = try Self.consolePush(try await JSONFields.body(request, context: context))
        guard let send = dependencies.consolePush else {
            throw APIError(
                .serviceUnavailable, code: "console_unavailable",
                message: "This server has no APNs endpoint to hand the push to.")
        }
        let answer = await send(push.request)
        // The refusal's body is APNs's JSON: `{"reason":…}`, with a `timestamp` for Unregistered.
        let refusal = answer.body.flatMap { try? JSONParser.parse(Array($0.utf8)) }?.objectValue
        var object: [String: JSONValue] = [
            "status": .number(Double(answer.status)),
            "apns_id": .string(answer.apnsID),
            "apns_unique_id": JSONValue.optional(answer.uniqueID),
            "reason": refusal?["reason"] ?? .null,
        ]
        if let timestamp = refusal?["timestamp"] { object["timestamp"] = timestamp }
        return JSONBody.response(JSONValue.object(object))
    }

    @Sendable func log(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let id = try context.parameters.require("apns_id").lowercased()
        let devices = try await store.devices(userID: user.userID).sorted {
            ($0.createdAt, $0.deviceID) < ($1.createdAt, $1.deviceID)
        }
        var deliveries: [JSONValue] = []
        for device in devices {
            guard let row = try await store.notification(deviceID: device.deviceID, id: id) else { continue }
            let notification = try JSONParser.parse(Array(try JSONBody.encode(NotificationJSON(row))))
            deliveries.append(
                .object([
                    "device_id": .string(device.deviceID),
                    "device_name": .string(device.name),
                    "notification": notification,
                    "decision": dependencies.policy.explain(row),
                    "events": .array(Self.events(row)),
                ]))
        }
        return JSONBody.response(JSONValue.object(["apns_id": .string(id), "deliveries": .array(deliveries)]))
    }

    /// What happened to a notification on one device, in time order.
    static func events(_ row: StoredNotification) -> [JSONValue] {
        var events: [(at: Date, order: Int, event: String, detail: String?)] = [
            (row.receivedAt, 0, "received", nil)
        ]
        if let decision = row.decision?.decision {
            events.append(
                (row.receivedAt, 1, "decided", "\(decision.effectiveLevel.rawValue), \(decision.disposition.rawValue)"))
        }
        if let at = row.deliveredAt { events.append((at, 2, "delivered", "to a session of the device")) }
        if let at = row.releasedAt { events.append((at, 3, "released", nil)) }
        if let at = row.readAt { events.append((at, 4, "read", nil)) }
        if let at = row.dismissedAt { events.append((at, 5, "dismissed", nil)) }
        if let at = row.removedAt { events.append((at, 6, "removed", nil)) }
        return events.sorted { ($0.at, $0.order) < ($1.at, $1.order) }.map { event in
            .object([
                "at": .string(Timestamp.string(event.at)), "event": .string(event.event),
                "detail": JSONValue.optional(event.detail),
            ])
        }
    }

    @Sendable func devices(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try await authenticator.requireUser(request)
        let devices = try await store.devices(userID: user.userID).sorted {
            ($0.createdAt, $0.deviceID) < ($1.createdAt, $1.deviceID)
        }
        var list: [JSONValue] = []
        for device in devices {
            let tokens = try await store.deviceTokens(deviceID: device.deviceID)
                .filter { $0.unregisteredAt == nil }
                .sorted { ($0.createdAt, $0.token) < ($1.createdAt, $1.token) }
            list.append(
                .object([
                    "device_id": .string(device.deviceID), "name": .string(device.name),
                    "tokens": .array(
                        tokens.map { .object(["token": .string($0.token), "bundle_id": .string($0.bundleID)]) }),
                ]))
        }
        return JSONBody.response(JSONValue.object(["devices": .array(list)]))
    }
}

/// The APNs endpoint's answer to a console push.
public struct ConsolePushAnswer: Sendable, Hashable {
    public var status: Int
    public var apnsID: String
    public var uniqueID: String?
    /// The JSON body of a refusal (`{"reason":…}`), nil for a 200.
    public var body: String?

    public init(status: Int, apnsID: String, uniqueID: String?, body: String?) {
        self.status = status
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.body = body
    }
}
