/// An APNs error reason with the HTTP status APNs answers it with.
///
/// An open set, like APNs' own: the known reasons are static members, and a reason Herald does not
/// know yet (from a peer) is still representable.
public struct APNsReason: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status code of the response.
    public let status: Int
    /// The reason string sent in the JSON body, exactly as APNs spells it.
    public let reason: String

    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { "\(status) \(reason)" }

    // 400
    public static let badCollapseId = APNsReason(status: 400, reason: "BadCollapseId")
    public static let badDeviceToken = APNsReason(status: 400, reason: "BadDeviceToken")
    public static let badExpirationDate = APNsReason(status: 400, reason: "BadExpirationDate")
    public static let badMessageId = APNsReason(status: 400, reason: "BadMessageId")
    public static let badPriority = APNsReason(status: 400, reason: "BadPriority")
    public static let badTopic = APNsReason(status: 400, reason: "BadTopic")
    public static let deviceTokenNotForTopic = APNsReason(status: 400, reason: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason(status: 400, reason: "DuplicateHeaders")
    public static let idleTimeout = APNsReason(status: 400, reason: "IdleTimeout")
    public static let invalidPushType = APNsReason(status: 400, reason: "InvalidPushType")
    public static let missingDeviceToken = APNsReason(status: 400, reason: "MissingDeviceToken")
    public static let missingTopic = APNsReason(status: 400, reason: "MissingTopic")
    public static let payloadEmpty = APNsReason(status: 400, reason: "PayloadEmpty")
    public static let topicDisallowed = APNsReason(status: 400, reason: "TopicDisallowed")
    /// Herald's reason for a body that is not a valid notification payload (APNs documents none).
    public static let badPayload = APNsReason(status: 400, reason: "BadPayload")
    // 403
    public static let expiredProviderToken = APNsReason(status: 403, reason: "ExpiredProviderToken")
    public static let forbidden = APNsReason(status: 403, reason: "Forbidden")
    public static let invalidProviderToken = APNsReason(status: 403, reason: "InvalidProviderToken")
    public static let missingProviderToken = APNsReason(status: 403, reason: "MissingProviderToken")
    public static let unrelatedKeyIdInToken = APNsReason(status: 403, reason: "UnrelatedKeyIdInToken")
    // 404, 405
    public static let badPath = APNsReason(status: 404, reason: "BadPath")
    public static let methodNotAllowed = APNsReason(status: 405, reason: "MethodNotAllowed")
    // 410
    public static let unregistered = APNsReason(status: 410, reason: "Unregistered")
    public static let expiredToken = APNsReason(status: 410, reason: "ExpiredToken")
    // 413
    public static let payloadTooLarge = APNsReason(status: 413, reason: "PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNsReason(status: 429, reason: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason(status: 429, reason: "TooManyRequests")
    // 5xx
    public static let internalServerError = APNsReason(status: 500, reason: "InternalServerError")
    public static let serviceUnavailable = APNsReason(status: 503, reason: "ServiceUnavailable")
    public static let shutdown = APNsReason(status: 503, reason: "Shutdown")
}

/// A rejected push: the reason, plus the time a token stopped being valid for 410 answers.
public struct APNsFailure: Error, Hashable, Sendable {
    public let reason: APNsReason
    /// Milliseconds since 1970 when the device token stopped being valid (410 answers only).
    public let timestamp: Int64?

    public init(_ reason: APNsReason, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// The JSON body APNs sends with this failure: `{"reason":…}` plus `timestamp` on 410.
    public var jsonBody: String {
        if let timestamp {
            return #"{"reason":"\#(reason.reason)","timestamp":\#(timestamp)}"#
        }
        return #"{"reason":"\#(reason.reason)"}"#
    }
}
