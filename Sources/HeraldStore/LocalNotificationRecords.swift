import Crypto
import Foundation
import HeraldPolicy

/// A credential of one app on one device (what `UNUserNotificationCenter` on that device signs its
/// requests with): it reaches only that app's requests, notifications, categories and settings.
public struct AppCredentialRecord: Hashable, Sendable {
    public var deviceID: String
    public var bundleID: String
    /// The owner of the device (the user whose settings the app reads).
    public var userID: String
    public var createdAt: Date

    public init(deviceID: String, bundleID: String, userID: String, createdAt: Date) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.userID = userID
        self.createdAt = createdAt
    }
}

/// A pending local notification request of an app on a device: added with a trigger, waiting to
/// fire (`UNUserNotificationCenter.pendingNotificationRequests()`).
public struct LocalRequestRecord: Hashable, Sendable {
    public var deviceID: String
    public var bundleID: String
    /// The app's identifier of the request (unique per app and device; adding it again replaces).
    public var identifier: String
    /// The content as the app sent it (the app API's content JSON).
    public var content: String
    /// The APNs-shaped payload made from the content: what the notification list stores when it fires.
    public var payload: String
    /// The trigger's JSON (`LocalTrigger.jsonText`, HeraldTriggers).
    public var trigger: String
    public var addedAt: Date
    /// When it fires next; nil when it never will again (kept so the app still lists it, as iOS
    /// lists a calendar request whose date has passed until it is removed).
    public var nextFireAt: Date?
    /// The store's revision of this request: larger for every add (a replaced request gets a new
    /// one), so a firing decided for an older revision is not applied. 0 before it is stored.
    public var revision: Int64

    public init(
        deviceID: String, bundleID: String, identifier: String, content: String, payload: String, trigger: String,
        addedAt: Date, nextFireAt: Date?, revision: Int64 = 0
    ) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.identifier = identifier
        self.content = content
        self.payload = payload
        self.trigger = trigger
        self.addedAt = addedAt
        self.nextFireAt = nextFireAt
        self.revision = revision
    }
}

/// One local notification to put into a device's list: a pending request that fired, or a request
/// added without a trigger (delivered at once).
public struct LocalDelivery: Sendable {
    /// The app's identifier of the request.
    public var identifier: String
    /// The notification, decided; its `id` is `LocalNotificationID.make(bundleID:identifier:)`.
    public var notification: StoredNotification
    /// The revision of the pending request that fired (nil: a request without a trigger, which
    /// replaces any pending request with its identifier). A firing whose request was removed or
    /// replaced since it was read changes nothing.
    public var firedRevision: Int64?
    /// The fire date the scheduler read for that request (nil: not checked, as for a location
    /// trigger, which fires on no date). A firing whose request has another fire date by now — it
    /// fired at this one already, on another node — changes nothing.
    public var firedFireDate: Date?
    /// A repeating request's next fire date; nil removes the pending request.
    public var nextFireAt: Date?
    /// The trigger that fired it (its JSON); nil for a request added without one.
    public var trigger: String?
    /// Whether the fired request stays pending as it is (a repeating location trigger: it fires on
    /// no date, but again at its next crossing); else `nextFireAt` decides.
    public var keepsRequest: Bool

    public init(
        identifier: String, notification: StoredNotification, firedRevision: Int64?, nextFireAt: Date?,
        trigger: String?, keepsRequest: Bool = false, firedFireDate: Date? = nil
    ) {
        self.identifier = identifier
        self.notification = notification
        self.firedRevision = firedRevision
        self.firedFireDate = firedFireDate
        self.nextFireAt = nextFireAt
        self.trigger = trigger
        self.keepsRequest = keepsRequest
    }
}

/// A notification of an app's list on a device, with the identifier the app knows it by.
public struct AppNotificationRecord: Hashable, Sendable {
    /// The request identifier: a local notification's own, a push's `apns-id` (its list id).
    public var identifier: String
    /// Whether an app's request made it (else a push).
    public var isLocal: Bool
    /// The trigger of a local notification that fired (its JSON); nil for a push or a request
    /// delivered without a trigger.
    public var trigger: String?
    public var notification: StoredNotification

    public init(identifier: String, isLocal: Bool, trigger: String?, notification: StoredNotification) {
        self.identifier = identifier
        self.isLocal = isLocal
        self.trigger = trigger
        self.notification = notification
    }
}

/// The list id of a local notification: a device's list holds every app's notifications, and two
/// apps may use the same request identifier, so the id is made from both — a UUID (lowercase, like
/// the `apns-id`s of pushes; version 8, name-based on SHA-256) — and the same request identifier
/// always gets the same id, so delivering it again replaces the one delivered before, as on iOS.
public enum LocalNotificationID {
    public static func make(bundleID: String, identifier: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("herald-local\u{0}\(bundleID)\u{0}\(identifier)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            hex[
                hex.index(
                    hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)]
        }
        return parts.joined(separator: "-")
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

/// An app's request for the person's permission (`requestAuthorization(options:)`), shown on the
/// device until the person answers it.
public struct AuthorizationRequestRecord: Hashable, Sendable {
    public var id: String
    public var deviceID: String
    public var bundleID: String
    public var userID: String
    /// The options asked for, by Herald's names (`alert`, `sound`, `badge`, `critical_alert`, …).
    public var options: [String]
    public var requestedAt: Date
    /// When the person answered; nil while pending.
    public var answeredAt: Date?
    /// The answer; nil while pending.
    public var granted: Bool?

    public init(
        id: String, deviceID: String, bundleID: String, userID: String, options: [String], requestedAt: Date,
        answeredAt: Date? = nil, granted: Bool? = nil
    ) {
        self.id = id
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.userID = userID
        self.options = options
        self.requestedAt = requestedAt
        self.answeredAt = answeredAt
        self.granted = granted
    }
}

/// What asking for authorization found.
public enum AuthorizationOutcome: Hashable, Sendable {
    /// The person's answer is known (or was given quietly: provisional): the app's settings.
    case determined(AppNotificationSettings)
    /// The person has to answer this request (made now, or one made earlier and still pending).
    case pending(AuthorizationRequestRecord)
}

/// A person's response to a notification on a device (a tap, a custom action, a typed reply, a
/// dismissal the category asked for), kept until the app's live connection takes it — once.
public struct NotificationResponseRecord: Hashable, Sendable {
    public var id: String
    public var deviceID: String
    public var bundleID: String
    /// The notification's list id.
    public var notificationID: String
    /// Apple's action identifier (`com.apple.UNNotificationDefaultActionIdentifier`, the dismiss one, or
    /// the category action's).
    public var actionIdentifier: String
    /// What the person typed, for a text-input action.
    public var userText: String?
    /// The notification as the app sees it when the person responded (the app API's JSON).
    public var notificationJSON: String
    public var respondedAt: Date
    /// When the app's connection took it; nil until then.
    public var deliveredAt: Date?

    public init(
        id: String, deviceID: String, bundleID: String, notificationID: String, actionIdentifier: String,
        userText: String?, notificationJSON: String, respondedAt: Date, deliveredAt: Date? = nil
    ) {
        self.id = id
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.notificationID = notificationID
        self.actionIdentifier = actionIdentifier
        self.userText = userText
        self.notificationJSON = notificationJSON
        self.respondedAt = respondedAt
        self.deliveredAt = deliveredAt
    }
}

/// An app's webhook: where Herald POSTs the person's responses to the app's notifications, signed
/// with `secret` as Standard Webhooks signs (`whsec_` + base64 of the key).
public struct AppWebhookRecord: Hashable, Sendable {
    public var bundleID: String
    public var url: String
    public var secret: String
    public var createdAt: Date

    public init(bundleID: String, url: String, secret: String, createdAt: Date) {
        self.bundleID = bundleID
        self.url = url
        self.secret = secret
        self.createdAt = createdAt
    }
}

/// How an app's webhook deliveries stand.
public struct WebhookStatus: Hashable, Sendable {
    /// Responses not acknowledged yet.
    public var pending: Int
    /// Responses the webhook acknowledged (a 2xx).
    public var delivered: Int
    /// The last failed attempt's error, and when it was.
    public var lastError: String?
    public var lastFailedAt: Date?

    public init(pending: Int, delivered: Int, lastError: String?, lastFailedAt: Date?) {
        self.pending = pending
        self.delivered = delivered
        self.lastError = lastError
        self.lastFailedAt = lastFailedAt
    }
}

/// A response on its way to its app's webhook: the body fixed when the response was made (so every
/// attempt sends the same bytes), the webhook's url and secret as they are now.
public struct WebhookDelivery: Hashable, Sendable {
    /// The response's id (the `webhook-id` header: a receiver drops repeats by it).
    public var id: String
    public var bundleID: String
    public var url: String
    public var secret: String
    public var body: String
    /// Attempts made so far.
    public var attempts: Int
    public var nextAttemptAt: Date

    public init(
        id: String, bundleID: String, url: String, secret: String, body: String, attempts: Int, nextAttemptAt: Date
    ) {
        self.id = id
        self.bundleID = bundleID
        self.url = url
        self.secret = secret
        self.body = body
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
    }
}

/// An interaction an app donated (`INInteraction.donate`): a message or call as it happened.
public struct InteractionRecord: Hashable, Sendable {
    public enum Direction: String, Hashable, Sendable, CaseIterable {
        case unspecified, outgoing, incoming
    }

    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case message, call
    }

    public var userID: String
    public var bundleID: String
    /// The device the app donated it on.
    public var deviceID: String
    /// The app's identifier of the interaction (`INInteraction.identifier`).
    public var identifier: String
    public var groupIdentifier: String?
    public var direction: Direction
    public var kind: Kind
    /// The interaction as the app API's JSON (its intent's people, group, conversation, dates).
    public var json: String
    public var donatedAt: Date

    public init(
        userID: String, bundleID: String, deviceID: String, identifier: String, groupIdentifier: String?,
        direction: Direction, kind: Kind, json: String, donatedAt: Date
    ) {
        self.userID = userID
        self.bundleID = bundleID
        self.deviceID = deviceID
        self.identifier = identifier
        self.groupIdentifier = groupIdentifier
        self.direction = direction
        self.kind = kind
        self.json = json
        self.donatedAt = donatedAt
    }
}
