import Foundation
import HeraldCore

// Scheduled Summary records. A summary is released without rewriting the notifications it
// releases: one `summary_releases` row per device of the user (its digest, its featured ids and a
// seq in the device's change feed) is written in the transaction that records the user's slot in
// `summary_deliveries`. Reads derive the released state of every notification it covers.

/// Where the store stood when the notifications of a summary were read: a notification covered by
/// the summary was committed (and last decided) at or before this point. A notification held for
/// the summary that arrives later, even with an earlier arrival time, waits for the next one.
public struct SummaryHorizon: Sendable, Hashable {
    /// The largest notification row id committed.
    public var rowID: Int64
    /// The largest seq committed.
    public var seq: Int64

    public init(rowID: Int64, seq: Int64) {
        self.rowID = rowID
        self.seq = seq
    }
}

/// A notification a user's summary for a slot would release: held for the summary, arrived at or
/// before the slot, not released by an earlier summary; with what the digest ranks it by.
public struct SummaryCandidate: Sendable, Hashable {
    public var userID: String
    public var deviceID: String
    public var id: String
    public var bundleID: String
    public var receivedAt: Date
    /// `aps.relevance-score` when it is a number, else 0 (the policy clamps it to 0…1 when ranking).
    public var relevanceScore: Double
    /// Whether it shows an attachment (every type Herald keeps is media: an image, audio or a movie;
    /// a communication avatar is not one of its attachments).
    public var hasMediaAttachment: Bool

    public init(
        userID: String, deviceID: String, id: String, bundleID: String, receivedAt: Date, relevanceScore: Double,
        hasMediaAttachment: Bool = false
    ) {
        self.hasMediaAttachment = hasMediaAttachment
        self.userID = userID
        self.deviceID = deviceID
        self.id = id
        self.bundleID = bundleID
        self.receivedAt = receivedAt
        self.relevanceScore = relevanceScore
    }
}

/// What the summaries of some users would release, read in one transaction, with its horizon.
public struct SummaryCandidates: Sendable, Hashable {
    /// Grouped per user in the order of the summaries read; a user's in no particular order (the
    /// digest's ranking is a total order, so it needs none, and a sort of every candidate of the
    /// read cost more than the rest of the read).
    public var held: [SummaryCandidate]
    /// `held[users[i]]` are the candidates of the i-th summary read.
    public var users: [Range<Int>]
    public var horizon: SummaryHorizon

    public init(held: [SummaryCandidate], users: [Range<Int>], horizon: SummaryHorizon) {
        self.held = held
        self.users = users
        self.horizon = horizon
    }
}

/// One app's part of a device's summary: its notification ids, best first.
public struct SummaryAppGroup: Sendable, Hashable, Codable {
    public var bundleID: String
    public var ids: [String]

    public init(bundleID: String, ids: [String]) {
        self.bundleID = bundleID
        self.ids = ids
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case ids
    }
}

/// A device's part of a user's summary.
public struct DeviceSummary: Sendable, Hashable {
    public var deviceID: String
    /// The apps in digest order, each with its notifications of this device.
    public var apps: [SummaryAppGroup]
    /// The featured notifications of this device.
    public var featured: [String]

    public init(deviceID: String, apps: [SummaryAppGroup], featured: [String]) {
        self.deviceID = deviceID
        self.apps = apps
        self.featured = featured
    }
}

/// One Scheduled Summary of a user: its time, its digest, what each device gets and the horizon
/// of the read it was made from (`SummaryCandidates`).
public struct SummaryRelease: Sendable, Hashable {
    public var userID: String
    /// The summary time this delivery is for; each (user, slot) is delivered at most once.
    public var slot: Date
    /// The user's digest as JSON text (kept with the delivery).
    public var digest: String
    /// One per device of the user that gets the summary event.
    public var devices: [DeviceSummary]
    public var horizon: SummaryHorizon

    public init(userID: String, slot: Date, digest: String, devices: [DeviceSummary], horizon: SummaryHorizon) {
        self.userID = userID
        self.slot = slot
        self.digest = digest
        self.devices = devices
        self.horizon = horizon
    }
}

/// A summary as a device's change feed has it (`event: summary`): its seq, the digest of the
/// device, and the notifications it released in their current state (listed silently, with the
/// summary in their decision), in digest order.
public struct StoredSummaryEvent: Sendable, Hashable {
    /// Its position in the device's change feed.
    public var seq: Int64
    public var deviceID: String
    public var userID: String
    public var slot: Date
    public var releasedAt: Date
    /// The apps in digest order.
    public var apps: [SummaryAppGroup]
    public var featured: [String]
    /// The released notifications still in the list, by id (removed ones are left out).
    public var notifications: [String: StoredNotification]

    public init(
        seq: Int64, deviceID: String, userID: String, slot: Date, releasedAt: Date,
        apps: [SummaryAppGroup], featured: [String], notifications: [String: StoredNotification]
    ) {
        self.seq = seq
        self.deviceID = deviceID
        self.userID = userID
        self.slot = slot
        self.releasedAt = releasedAt
        self.apps = apps
        self.featured = featured
        self.notifications = notifications
    }
}

/// A device's summary event as a release wrote it.
public struct ReleasedSummary: Sendable, Hashable {
    public var deviceID: String
    /// The event's seq in the device's change feed.
    public var seq: Int64

    public init(deviceID: String, seq: Int64) {
        self.deviceID = deviceID
        self.seq = seq
    }
}
