import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
import Testing

@testable import HeraldStore

@Suite("App badges")
struct AppBadgeTests {
    /// A notification with `aps.badge` (raw JSON) and a decision that applies it or not.
    static func push(
        _ id: String, badge: String?, _ disposition: Disposition = .alerted, applies: Bool = true,
        app: String = Fixture.appID, device: String = Fixture.deviceID, at seconds: Int64 = 0
    ) -> StoredNotification {
        let payload = badge.map { #"{"aps":{"alert":"hi","badge":\#($0)}}"# } ?? #"{"aps":{"alert":"hi"}}"#
        var notification = Fixture.notification(
            id, device: device, app: app, receivedAt: Fixture.time(seconds), payload: payload)
        notification.decision = decision(disposition, badge: applies)
        return notification
    }

    static func decision(_ disposition: Disposition, badge: Bool, reasons: ReasonCodes = []) -> DecisionRecord {
        DecisionRecord(
            decision: Decision(disposition: disposition, badge: badge, effectiveLevel: .active, reasons: reasons),
            context: .init(audioRoute: .none)
        )
    }

    static func badges(_ store: any NotificationListStore, device: String = Fixture.deviceID) async throws -> [String:
        Int]
    {
        Dictionary(uniqueKeysWithValues: try await store.appBadges(deviceID: device).map { ($0.bundleID, $0.badge) })
    }

    @Test("the badge rule: a decision that applies the badge and a payload badge (lenient number), else none")
    func theBadgeRule() throws {
        let samples: [StoredNotification] = [
            Self.push("a", badge: "3"), Self.push("b", badge: "0"), Self.push("c", badge: nil),
            Self.push("d", badge: "4", applies: false), Self.push("e", badge: "\"7\""), Self.push("f", badge: "true"),
            Self.push("g", badge: "5", .notDelivered, applies: false),
            Self.push("h", badge: "6", .heldForFocus, applies: false),
        ]
        for sample in samples {
            var carrying = sample
            carrying.arrival = ArrivalFacts(try NotificationPayload(json: Array(sample.payload.utf8)))
            #expect(AppBadgeRule.appliedBadge(carrying) == AppBadgeRule.appliedBadge(sample), "\(sample.id)")
        }
        #expect(samples.map(AppBadgeRule.appliedBadge) == [3, 0, nil, nil, 7, 1, nil, nil])
    }

    @Test(arguments: StoreEngine.all)
    func theLatestAppliedPushSetsTheAppBadgeAndZeroClearsIt(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("a", badge: "3"), Self.push("b", badge: "5", app: Fixture.otherAppID)])
        #expect(try await Self.badges(store) == [Fixture.appID: 3, Fixture.otherAppID: 5])
        // A push without a badge leaves it; a later one in the same batch wins.
        _ = try await store.insert([Self.push("c", badge: nil), Self.push("d", badge: "7"), Self.push("e", badge: "8")])
        #expect(try await Self.badges(store)[Fixture.appID] == 8)
        _ = try await store.insert([Self.push("f", badge: "0")])
        let records = try await store.appBadges(deviceID: Fixture.deviceID)
        #expect(records.first { $0.bundleID == Fixture.appID }?.badge == 0)
        #expect(records.first { $0.bundleID == Fixture.appID }?.notificationID == "f")
        // Other devices have their own badges.
        #expect(try await store.appBadges(deviceID: Fixture.otherDeviceID).isEmpty)
    }

    @Test(arguments: StoreEngine.all)
    func aBadgeTheDecisionDoesNotApplyIsIgnored(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("a", badge: "2")])
        var undecided = Fixture.notification("u", payload: #"{"aps":{"badge":9}}"#)
        undecided.decision = nil
        _ = try await store.insert([
            Self.push("denied", badge: "9", .notDelivered, applies: false),
            Self.push("off", badge: "9", .alerted, applies: false),
            Self.push("held", badge: "9", .heldForFocus, applies: false),
            undecided,
        ])
        #expect(try await Self.badges(store) == [Fixture.appID: 2])
    }

    @Test(arguments: StoreEngine.all)
    func theBadgeIsReadAsThePayloadParserReadsIt(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("a", badge: #""12""#)])
        #expect(try await Self.badges(store)[Fixture.appID] == 12)
        _ = try await store.insert([Self.push("b", badge: "4.7")])
        #expect(try await Self.badges(store)[Fixture.appID] == 4)
        _ = try await store.insert([Self.push("c", badge: "true")])
        #expect(try await Self.badges(store)[Fixture.appID] == 1)
    }

    @Test(arguments: StoreEngine.all)
    func readingDismissingAndRemovingLeaveTheBadge(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("a", badge: "4")])
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(1))
        _ = try await store.dismiss(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(2))
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(3))
        #expect(try await Self.badges(store) == [Fixture.appID: 4])
    }

    @Test(arguments: StoreEngine.all)
    func aReleasedHeldNotificationAppliesItsBadgeWhenReleased(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("held", badge: "6", .heldForFocus, applies: false, at: 0)])
        _ = try await store.insert([Self.push("later", badge: "2", at: 1)])
        #expect(try await Self.badges(store) == [Fixture.appID: 2])
        // The Focus ends: the held one is decided again and applies its badge now.
        _ = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "held",
            decision: Self.decision(.alerted, badge: true), releasedAt: Fixture.time(5), at: Fixture.time(5)
        )
        #expect(try await Self.badges(store) == [Fixture.appID: 6])
        // A new decision of an already applied notification (same content) does not apply it again.
        _ = try await store.insert([Self.push("newer", badge: "1", at: 6)])
        let changed = Self.decision(.alerted, badge: true, reasons: [ReasonCode(rawValue: "released-focus-ended")])
        _ = try await store.updateDecision(
            deviceID: Fixture.deviceID, id: "held", decision: changed,
            releasedAt: Fixture.time(5), at: Fixture.time(7)
        )
        #expect(try await Self.badges(store) == [Fixture.appID: 1])
    }

    @Test(arguments: StoreEngine.all)
    func aProvidersRetryAppliesItsBadgeAgain(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([Self.push("a", badge: "3", at: 0), Self.push("b", badge: "5", at: 1)])
        _ = try await store.insert([Self.push("a", badge: "3", at: 2)])
        #expect(try await Self.badges(store) == [Fixture.appID: 3])
    }

    @Test(arguments: StoreEngine.all)
    func aPayloadSQLiteCannotReadDoesNotFailTheWrite(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        var odd = Self.push("odd", badge: "1")
        odd.payload = "not json"
        _ = try await store.insert([odd, Self.push("ok", badge: "2")])
        #expect(try await Self.badges(store) == [Fixture.appID: 2])
    }
}
