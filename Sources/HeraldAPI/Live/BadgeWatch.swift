import Foundation
import HeraldCore
import HeraldStore

/// A stream session's view of its device's app badges: after the session sent a change whose
/// decision applies a badge (a push, a release), its next output is a `badge` event with the
/// badges as the store has them now — when they differ from the last ones the session sent.
///
/// The event is not part of the change feed (no cursor, not resumable): a client that reconnects
/// reads `GET /v1/devices/{id}/badges` for the current value. A push without `aps.badge` costs one
/// substring search of the payload; one that sets the badge the session sent last costs no parse
/// (a pushed row carries its facts, `ArrivalFacts`) and no store read.
struct BadgeWatch: Sendable {
    /// The badges last sent (bundle id → badge, cleared ones included); nil before the first event.
    private var sent: [String: Int]?
    /// Whether a sent change set a badge that differs from the last one sent (or none was sent):
    /// only then is the store read. A change that sets the badge it already has costs no read.
    private var isDue = false

    /// Notes changes the session is about to send.
    mutating func note(_ changes: [LiveChange]) {
        for change in changes {
            guard let badge = Self.appliedBadge(change.notification) else { continue }
            if sent?[change.notification.bundleID] != badge { isDue = true }
        }
    }

    /// The `badge` event due, if any: `{"badge_total", "apps": [{"bundle_id","badge"}], "changed":
    /// [{"bundle_id","badge"}]}` (apps with a badge, by bundle id; `changed` = the apps whose badge
    /// differs from the last event, 0 for a cleared one). nil when nothing changed.
    mutating func event(store: any HeraldStore, deviceID: String) async throws -> JSONValue? {
        guard isDue else { return nil }
        isDue = false
        let records = try await store.appBadges(deviceID: deviceID)
        let current = Dictionary(records.map { ($0.bundleID, $0.badge) }, uniquingKeysWith: { $1 })
        let previous = sent ?? [:]
        let changed = current.filter { previous[$0.key] != $0.value }
            .merging(previous.filter { current[$0.key] == nil }.mapValues { _ in 0 }) { $1 }
        guard sent == nil || !changed.isEmpty else { return nil }
        sent = current
        let response = BadgeJSON.response(records)
        return .object([
            "badge_total": .number(Double(response.total)),
            "apps": .array(response.apps.map(Self.json)),
            "changed": .array(
                changed.sorted { $0.key < $1.key }.map { Self.json(.init(bundleID: $0.key, badge: $0.value)) }),
        ])
    }

    private static func json(_ app: BadgeJSON.AppJSON) -> JSONValue {
        .object(["bundle_id": .string(app.bundleID), "badge": .number(Double(app.badge))])
    }

    /// The badge a row's decision applies from its payload (the rule the store applies when it
    /// writes the row, `AppBadgeRule`); nil when it applies none.
    static func appliedBadge(_ row: StoredNotification) -> Int? {
        AppBadgeRule.appliedBadge(row)
    }
}
