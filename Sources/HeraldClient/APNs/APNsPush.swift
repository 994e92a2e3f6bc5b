import Foundation
import HeraldCore

/// One push to send: the device token, the APNs headers and the payload.
///
/// Header values are passed through as given (nil leaves the header out), so a request can also
/// carry values APNs refuses — useful against a test server.
public struct APNsPush: Sendable {
    /// The device token (hex); the path is `/3/device/<deviceToken>`.
    public var deviceToken: String
    /// `apns-topic`: the bundle id, plus the suffix the push type requires.
    public var topic: String
    /// `apns-push-type` (alert, background, voip, …).
    public var pushType: String?
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int?
    /// `apns-expiration`: UNIX seconds; 0 delivers once without storing.
    public var expiration: Int64?
    /// `apns-collapse-id`: replaces an earlier notification with the same id.
    public var collapseID: String?
    /// `apns-id`: a canonical UUID; APNs generates one when absent.
    public var apnsID: String?
    /// The JSON payload.
    public var payload: Data

    /// A request from its parts.
    public init(
        deviceToken: String, topic: String, payload: Data, pushType: String? = "alert",
        priority: Int? = nil, expiration: Int64? = nil, collapseID: String? = nil, apnsID: String? = nil
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }

    /// The APNs headers of this request, authorization excluded, in sending order.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("apns-topic", topic)]
        if let pushType { headers.append(("apns-push-type", pushType)) }
        if let priority { headers.append(("apns-priority", String(priority))) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID)) }
        return headers
    }
}

/// What APNs answered to one push.
public struct APNsPushResult: Hashable, Sendable {
    /// The HTTP status: 200 when accepted.
    public var status: Int
    /// The `reason` of an error body (`BadDeviceToken`, …); nil on success.
    public var reason: String?
    /// The `apns-id` response header: the id sent, or the one APNs generated.
    public var apnsID: String?
    /// The `apns-unique-id` response header (development environment only).
    public var apnsUniqueID: String?
    /// The `timestamp` of a 410 body: when the token became invalid, in milliseconds since 1970.
    public var timestamp: Int64?

    /// A response from its parts.
    public init(status: Int, reason: String?, apnsID: String?, apnsUniqueID: String?, timestamp: Int64? = nil) {
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.timestamp = timestamp
    }

    /// Whether APNs accepted the push.
    public var isAccepted: Bool { status == 200 }

    /// The response as one JSON line: `{"status":…,"reason":…,"apns_id":…,"apns_unique_id":…}`, plus
    /// `"timestamp"` when the body had one.
    public var jsonLine: String {
        var object = OrderedJSONObject([
            "status": .number(Double(status)),
            "reason": .string(orNull: reason),
            "apns_id": .string(orNull: apnsID),
            "apns_unique_id": .string(orNull: apnsUniqueID),
        ])
        if let timestamp { object.append("timestamp", .number(Double(timestamp))) }
        return object.jsonLine
    }

    /// Reads `reason` and `timestamp` from an error body; other bodies leave them nil.
    static func errorFields(of body: Data) -> (reason: String?, timestamp: Int64?) {
        guard !body.isEmpty,
            let object = (try? JSONDecoder().decode(JSONValue.self, from: body))?.objectValue
        else { return (nil, nil) }
        let timestamp = object["timestamp"]?.lenientNumber.flatMap { $0.isFinite ? Int64(exactly: $0.rounded()) : nil }
        return (object["reason"]?.stringValue, timestamp)
    }
}
