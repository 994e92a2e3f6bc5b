import Foundation
import HeraldCore
import HeraldPolicy

/// A notification in a device's list, in its latest state.
///
/// Every change (new, read, dismissed, removed, replaced) gives the row a new, larger `seq`, so a
/// session that resumes from a cursor sees each changed notification once, in its latest state.
public struct StoredNotification: Hashable, Sendable {
    /// The change sequence: the cursor of this row's latest change (one global sequence).
    public var seq: Int64
    /// The notification id: the apns-id (unique within a device's list).
    public var id: String
    public var deviceID: String
    public var bundleID: String
    public var topic: String
    public var pushType: PushType
    public var priority: Int
    public var collapseID: String?
    /// `apns-expiration` in UNIX seconds (0 = only to sessions connected at arrival), nil when absent.
    public var expiration: Int64?
    /// The payload exactly as the provider sent it (UTF-8 JSON).
    public var payload: String
    public var receivedAt: Date
    /// When a session of the device first received it; nil while nobody has.
    public var deliveredAt: Date?
    public var readAt: Date?
    public var dismissedAt: Date?
    /// Set on a tombstone: removed by the user or replaced through its collapse id.
    public var removedAt: Date?
    /// The delivery decision, with what its reasons name; nil until the notification is decided.
    public var decision: DecisionRecord? {
        get { decisionBox?.value }
        set {
            decisionBox = newValue.map(DecisionBox.init)
            arrival.decisionJSON = nil
        }
    }
    /// The decision behind one reference: a row is copied several times on the push path (the
    /// writer's batch, the stored rows, the live fan-out), and a `DecisionRecord` inline is ~30
    /// reference-counted fields (measured: +1.5 µs of server CPU per push inline).
    private var decisionBox: DecisionBox?
    /// When a held notification was released (by its Focus ending or by a Scheduled Summary).
    public var releasedAt: Date?
    /// What the push path knew of it (the parsed payload, whether the decision applies the badge),
    /// carried along (neither stored nor compared); empty on rows read from the store.
    public var arrival = ArrivalFacts()

    public init(
        seq: Int64, id: String, deviceID: String, bundleID: String, topic: String, pushType: PushType,
        priority: Int, collapseID: String?, expiration: Int64?, payload: String, receivedAt: Date,
        deliveredAt: Date? = nil, readAt: Date? = nil, dismissedAt: Date? = nil, removedAt: Date? = nil,
        decision: DecisionRecord? = nil, releasedAt: Date? = nil
    ) {
        self.seq = seq
        self.id = id
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.expiration = expiration
        self.payload = payload
        self.receivedAt = receivedAt
        self.deliveredAt = deliveredAt
        self.readAt = readAt
        self.dismissedAt = dismissedAt
        self.removedAt = removedAt
        self.decisionBox = decision.map(DecisionBox.init)
        self.releasedAt = releasedAt
    }

    /// The media shown with it (a local notification's or a service extension's), in order.
    public var attachments: [NotificationAttachment] = []

    /// The decision's disposition; nil until the notification is decided.
    public var disposition: Disposition? { decisionBox?.value.decision.disposition }

    /// What the device shows when that is not the `alert` as sent (the decision's `display`).
    public var decisionDisplay: NotificationDisplay? { decisionBox?.value.display }

    /// Whether the decision applies the payload's badge (false until decided).
    public var decisionAppliesBadge: Bool { decisionBox?.value.decision.badge ?? false }

    /// The decision as the store keeps it and clients read it (the one public JSON shape, see
    /// `Decision+JSON.swift`): the text it was read or written as, else encoded now.
    public var decisionJSON: String? {
        if let text = arrival.decisionJSON { return text }
        return try? decision?.jsonText()
    }

    /// Sets the decision with its JSON text, known already (read from the store, or encoded by the
    /// push path), so it is not encoded again.
    public mutating func setDecision(_ decision: DecisionRecord?, json: String?) {
        decisionBox = decision.map(DecisionBox.init)
        arrival.decisionJSON = json
    }

    /// Whether this row is a tombstone (the stream announces it as `removed`).
    public var isRemoved: Bool { removedAt != nil }

    /// Whether the notification may still reach a session at `now`: it was delivered already, or it
    /// has not expired (an undelivered notification past its `apns-expiration` is never delivered).
    public func isDeliverable(now: Date) -> Bool {
        ExpiryRule.isDeliverable(
            expiration: expiration, alreadyDelivered: deliveredAt != nil, toConnectedSession: false, now: now)
    }
}

extension StoredNotification {
    /// A new list entry for an accepted push (`seq` is assigned by the store on commit).
    public init(accepted push: AcceptedPush, receivedAt: Date, deliveredAt: Date?) {
        self.init(
            seq: 0, id: APNsID.canonical(push.apnsID), deviceID: push.token.deviceID, bundleID: push.app.bundleID,
            topic: push.topic, pushType: push.pushType, priority: push.priority.rawValue,
            collapseID: push.collapseID, expiration: push.expiration.seconds,
            payload: String(decoding: push.rawPayload, as: UTF8.self),
            receivedAt: receivedAt, deliveredAt: deliveredAt
        )
        arrival = ArrivalFacts(push.payload)
    }
}

/// What the push path knew of a notification when it handed it to the store: travels with a
/// `StoredNotification` (neither stored nor compared: two rows are equal whether or not one still
/// carries it), so the store and the live streams need not parse its JSON again.
public struct ArrivalFacts: Hashable, Sendable {
    /// The payload as parsed on arrival; nil when not carried.
    public var payload: NotificationPayload? { payloadBox?.value }
    /// The payload behind one reference, as the decision is: a row is copied several times on the
    /// push path, and a `NotificationPayload` inline is some twenty reference-counted fields, each
    /// retained and released by every copy.
    private let payloadBox: PayloadBox?
    /// The decision's JSON text when known (cleared whenever the decision is set without it).
    public var decisionJSON: String?

    public init(_ payload: NotificationPayload? = nil) {
        self.payloadBox = payload.map(PayloadBox.init)
    }

    public static func == (lhs: ArrivalFacts, rhs: ArrivalFacts) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// A parsed payload behind a reference (`ArrivalFacts`).
private final class PayloadBox: Sendable {
    let value: NotificationPayload

    init(_ value: NotificationPayload) { self.value = value }
}

/// A `DecisionRecord` behind a reference, compared and hashed by value.
private final class DecisionBox: Hashable, Sendable {
    let value: DecisionRecord

    init(_ value: DecisionRecord) { self.value = value }

    static func == (lhs: DecisionBox, rhs: DecisionBox) -> Bool { lhs === rhs || lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
