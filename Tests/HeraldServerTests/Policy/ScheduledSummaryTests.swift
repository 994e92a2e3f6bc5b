import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("Scheduled Summary service (in-process server, test clock)")
struct ScheduledSummaryTests {
    /// A summary time ten minutes or so after `now`, on a whole minute (UTC).
    static func slot(after now: Date) -> (date: Date, time: TimeOfDay) {
        let seconds = (now.timeIntervalSince1970 + 600) / 60
        let date = Date(timeIntervalSince1970: seconds.rounded(.up) * 60)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (date, TimeOfDay(hour: parts.hour!, minute: parts.minute!))
    }

    static func push(_ body: String, relevance: Double) -> String {
        #"{"alert":{"body":"\#(body)"},"relevance-score":\#(relevance)}"#
    }

    @Test("an app in the summary is held, and released at the summary time as one digest, exactly once")
    func summaryReleasesOnce() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let slot = Self.slot(after: herald.clock.now)
        // Given the demo app in a summary at `slot`
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [slot.time], apps: [herald.demo.topic]), userID: userID)
        try await herald.userStateChanged(userID)

        // When three pushes arrive before it
        let client = try herald.apnsClient()
        var held: [StoredNotification] = []
        for (body, relevance) in [("low", 0.1), ("high", 0.9), ("mid", 0.5)] {
            held.append(try await herald.push(Self.push(body, relevance: relevance), client: client))
        }
        try await client.shutdown()

        // Then they are held, and the preview shows the next summary with all three
        #expect(held.allSatisfy { $0.disposition == .heldForSummary })
        #expect(
            reasons(herald.application.policy.explain(held[0])).contains {
                $0.code == "summary-held" && $0.sentence == "Held for the Scheduled Summary: Demo is in the summary."
            })
        let preview = try await herald.application.policy.nextSummaryPreview(userID: userID)
        #expect(preview.at == slot.date)
        #expect(preview.digest.count == 3)

        // When the summary time comes
        herald.clock.advance(to: slot.date.addingTimeInterval(1))
        let event = try await herald.nextEvent { if case .summaryDelivered = $0 { true } else { false } }
        guard case .summaryDelivered(let delivery) = event else { return }

        // Then one digest releases all three, best first, listed silently with their release time
        #expect(delivery.userID == userID)
        #expect(delivery.slot == slot.date)
        #expect(!delivery.wasDeliveredBefore)
        #expect(delivery.digest.apps.count == 1)
        #expect(delivery.digest.apps.first?.notifications.map(\.id) == [held[1].id, held[2].id, held[0].id])
        #expect(delivery.digest.featured.map(\.id) == [held[1].id])
        #expect(delivery.events.map(\.deviceID) == [herald.demo.deviceID])
        for row in held {
            let released = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: row.id))
            #expect(released.disposition == .listedSilently)
            #expect(released.releasedAt == slot.date.addingTimeInterval(1))
        }
        let lines = reasons(try await herald.application.explain(deviceID: herald.demo.deviceID, id: held[1].id))
        #expect(
            lines.contains { $0.code == "summary-delivered" && $0.sentence.hasSuffix(", as a featured notification.") })
        let notFeatured = reasons(try await herald.application.explain(deviceID: herald.demo.deviceID, id: held[0].id))
        #expect(
            notFeatured.contains {
                $0.code == "summary-delivered" && !$0.sentence.hasSuffix(", as a featured notification.")
            })

        // And the same summary time is never delivered again
        let again = try await herald.store.recordSummaryDelivery(
            userID: userID, slot: slot.date, digest: "{}", at: herald.clock.now)
        #expect(!again)
        try await herald.stop()
    }

    @Test("a summary time that passed while Herald was down is released at start-up, and only once")
    func summaryCatchUpAfterRestart() async throws {
        // Given a held notification and a summary time ahead
        let first = try await PolicyHerald.start()
        let userID = try await first.userID()
        let slot = Self.slot(after: first.clock.now)
        try await first.store.setSummarySchedule(
            try SummarySchedule(times: [slot.time], apps: [first.demo.topic]), userID: userID)
        try await first.userStateChanged(userID)
        let client = try first.apnsClient()
        let held = try await first.push(Self.push("while you were away", relevance: 0.5), client: client)
        try await client.shutdown()
        #expect(held.disposition == .heldForSummary)
        try await first.stop(removingData: false)

        // When Herald starts again after the summary time
        let second = try await PolicyHerald.start(at: slot.date.addingTimeInterval(600), directory: first.directory)
        let stored = try await second.store.notification(deviceID: second.demo.deviceID, id: held.id)

        // Then the missed summary was released during start-up
        #expect(stored?.disposition == .listedSilently)
        #expect(stored?.releasedAt == slot.date.addingTimeInterval(600))
        let last = try await second.store.lastSummaryDelivery(userID: userID)
        #expect(last == slot.date)
        try await second.stop(removingData: false)

        // And a third start-up, still before the next time, delivers nothing again
        let third = try await PolicyHerald.start(at: slot.date.addingTimeInterval(1200), directory: first.directory)
        let unchanged = try await third.store.notification(deviceID: third.demo.deviceID, id: held.id)
        #expect(unchanged?.seq == stored?.seq)
        #expect(try await third.store.lastSummaryDelivery(userID: userID) == slot.date)
        try await third.stop()
    }

    @Test("a user with two devices gets one digest; each device's event holds its own notifications, in digest order")
    func summaryAcrossTwoDevices() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let slot = Self.slot(after: herald.clock.now)
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [slot.time], apps: [herald.demo.topic]), userID: userID)
        try await herald.userStateChanged(userID)
        // Given a second device of the user, with a token for the demo app
        let tablet = try await herald.application.registry.createDevice(userID: userID, name: "Tablet")
        let tabletToken = try await herald.application.registry.createDeviceToken(
            deviceID: tablet.deviceID, bundleID: herald.demo.topic)

        // When pushes to both devices are held for the summary
        let client = try herald.apnsClient()
        var ids: [String: String] = [:]
        for (body, relevance, token) in [
            ("low", 0.1, herald.demo.deviceToken), ("high", 0.9, tabletToken.token), ("mid", 0.5, tabletToken.token),
        ] {
            let result = try await client.send(
                APNsPush(
                    deviceToken: token, topic: herald.demo.topic,
                    payload: Data(#"{"aps":\#(Self.push(body, relevance: relevance))}"#.utf8)))
            ids[body] = try #require(result.apnsID?.lowercased(), "push answered \(result.status)")
        }
        try await client.shutdown()

        // And the summary time comes
        herald.clock.advance(to: slot.date.addingTimeInterval(1))
        let event = try await herald.nextEvent { if case .summaryDelivered = $0 { true } else { false } }
        guard case .summaryDelivered(let delivery) = event else { return }

        // Then the user's digest ranks all three, and each device has one summary event with its part
        #expect(delivery.digest.apps.first?.notifications.map(\.id) == [ids["high"]!, ids["mid"]!, ids["low"]!])
        #expect(delivery.events.map(\.deviceID) == [tablet.deviceID, herald.demo.deviceID])
        let tabletEvent = try #require(
            try await herald.store.summaryEvents(deviceID: tablet.deviceID, after: 0, through: nil, limit: 10).first)
        #expect(tabletEvent.apps == [SummaryAppGroup(bundleID: herald.demo.topic, ids: [ids["high"]!, ids["mid"]!])])
        #expect(tabletEvent.featured == [ids["high"]!])
        let phoneEvent = try #require(
            try await herald.store.summaryEvents(deviceID: herald.demo.deviceID, after: 0, through: nil, limit: 10)
                .first)
        #expect(phoneEvent.apps == [SummaryAppGroup(bundleID: herald.demo.topic, ids: [ids["low"]!])])
        #expect(phoneEvent.featured.isEmpty)
        #expect(
            Set(phoneEvent.notifications.keys) == [ids["low"]!]
                && phoneEvent.notifications.values.allSatisfy { $0.disposition == .listedSilently })
        try await herald.stop()
    }
}
