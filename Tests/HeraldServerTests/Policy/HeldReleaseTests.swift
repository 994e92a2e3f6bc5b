import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("Held notifications released by user-state changes and at start-up; categories in decisions")
struct HeldReleaseTests {
    static let alert = #"{"alert":{"title":"Hello","body":"World"}}"#

    @Test("taking the app out of the summary releases what it held for the summary, at once and quietly, live")
    func appLeavesSummary() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [TimeOfDay(hour: 8)], apps: [herald.demo.topic]), userID: userID)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let held = try await herald.push(Self.alert, client: client)
        try await client.shutdown()
        #expect(held.disposition == .heldForSummary)

        let session = herald.application.hub.subscribe(deviceID: herald.demo.deviceID)
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [TimeOfDay(hour: 8)], apps: []), userID: userID)
        let changes = try await herald.userStateChanged(userID)

        // Released quietly: listed without a banner or sound, not alerted again
        let released = try #require(changes.first { $0.id == held.id })
        #expect(released.disposition == .listedSilently)
        #expect(released.seq > held.seq)
        #expect(released.releasedAt == herald.clock.now)
        try expectReleasedQuietly(released, badge: false)
        let live = await session.next()
        guard case .changes(let rows)? = live, let streamed = rows.first(where: { $0.id == held.id }) else {
            Issue.record("the session did not get the released notification")
            return
        }
        #expect(streamed.disposition == .listedSilently)
        try expectReleasedQuietly(streamed, badge: false)
        session.finish()
        let lines = reasons(herald.application.policy.explain(released))
        #expect(
            lines.first { $0.code == "released-summary-off" }?.sentence
                == "Released quietly when Demo left the Scheduled Summary, or the summary was turned off: listed without a banner or sound, as what the summary held does not alert again."
        )
        try await herald.stop()
    }

    @Test("turning the Scheduled Summary off releases what it held quietly, its badge applied")
    func summaryTurnedOff() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [TimeOfDay(hour: 8)], apps: [herald.demo.topic]), userID: userID)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let held = try await herald.push(
            #"{"alert":{"title":"Hello","body":"World"},"sound":"default","badge":4}"#, client: client)
        try await client.shutdown()
        #expect(held.disposition == .heldForSummary)
        #expect(try await herald.store.appBadges(deviceID: herald.demo.deviceID).isEmpty)

        try await herald.store.setSummarySchedule(.off, userID: userID)
        let changes = try await herald.userStateChanged(userID)

        let released = try #require(changes.first { $0.id == held.id })
        try expectReleasedQuietly(released, badge: true)
        #expect(try await herald.store.appBadges(deviceID: herald.demo.deviceID).map(\.badge) == [4])
        #expect(reasons(herald.application.policy.explain(released)).map(\.code).contains("released-summary-off"))
        try await herald.stop()
    }

    @Test("a Focus that ended while Herald was down releases what it held at start-up")
    func focusEndedWhileDown() async throws {
        let first = try await PolicyHerald.start()
        let userID = try await first.userID()
        let start = first.clock.now
        let sleep = FocusMode(
            id: "sleep", name: "Sleep", kind: .sleep,
            manual: .on(since: start.addingTimeInterval(-60), until: start.addingTimeInterval(300)))
        try await first.store.upsertFocusMode(sleep, userID: userID)
        try await first.userStateChanged(userID)
        let client = try first.apnsClient()
        let held = try await first.push(Self.alert, client: client)
        try await client.shutdown()
        #expect(held.disposition == .heldForFocus)
        #expect(
            reasons(first.application.policy.explain(held)).map(\.sentence).contains(
                "Held: the Sleep Focus is on and Demo is not an allowed app."))
        try await first.stop(removingData: false)

        let second = try await PolicyHerald.start(at: start.addingTimeInterval(900), directory: first.directory)
        let stored = try #require(try await second.store.notification(deviceID: second.demo.deviceID, id: held.id))
        #expect(stored.disposition == .listedSilently)
        try expectReleasedQuietly(stored, badge: false)
        #expect(stored.releasedAt == start.addingTimeInterval(900))
        try await second.stop()
    }

    @Test(
        "a hidden preview carries the category's placeholder and options; a changed category applies after invalidation"
    )
    func categoryPlaceholder() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.setPreferences(UserPreferences(showPreviews: .never), userID: userID)
        try await herald.store.upsertCategory(
            bundleID: herald.demo.topic, identifier: "MESSAGE",
            json:
                #"{"identifier":"MESSAGE","actions":[],"intent_identifiers":[],"hidden_previews_body_placeholder":"%u new messages","category_summary_format":null,"options":["hidden_previews_show_title"]}"#
        )
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let aps = #"{"alert":{"title":"Ann","body":"Lunch?"},"category":"MESSAGE"}"#
        let first = try await herald.push(aps, client: client)
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(first.decisionJSON).utf8))
        guard case .hidden(let hidden) = decision.preview else {
            Issue.record("the preview is not hidden")
            return
        }
        #expect(hidden.placeholder == "%u new messages")
        #expect(hidden.showsTitle)
        #expect(!hidden.showsSubtitle)
        #expect(
            reasons(herald.application.policy.explain(first)).map(\.sentence).contains(
                "Preview hidden: Show Previews is set to Never."))

        try await herald.store.upsertCategory(
            bundleID: herald.demo.topic, identifier: "MESSAGE",
            json:
                #"{"identifier":"MESSAGE","actions":[],"intent_identifiers":[],"hidden_previews_body_placeholder":"%u replies","category_summary_format":null,"options":[]}"#
        )
        await herald.application.policy.appResourcesChanged(bundleID: herald.demo.topic)
        let second = try await herald.push(aps, client: client)
        try await client.shutdown()
        let changed = try JSONDecoder().decode(Decision.self, from: Data(try #require(second.decisionJSON).utf8))
        guard case .hidden(let hiddenAgain) = changed.preview else {
            Issue.record("the preview is not hidden")
            return
        }
        #expect(hiddenAgain.placeholder == "%u replies")
        #expect(!hiddenAgain.showsTitle)
        try await herald.stop()
    }

    @Test("the decision carries the actions of the notification's category, as registered; none without one")
    func categoryActions() async throws {
        let herald = try await PolicyHerald.start()
        let actions =
            #"[{"identifier":"REPLY","title":"Reply","options":["authentication_required"],"icon":{"system_image_name":"arrowshape.turn.up.left"},"text_input":{"button_title":"Send","placeholder":"Message"}},{"identifier":"DELETE","title":"Delete","options":["destructive"],"icon":null,"text_input":null}]"#
        try await herald.store.upsertCategory(
            bundleID: herald.demo.topic, identifier: "MESSAGE",
            json: #"{"identifier":"MESSAGE","actions":"# + actions
                + #","intent_identifiers":[],"hidden_previews_body_placeholder":null,"category_summary_format":null,"options":[]}"#
        )
        await herald.application.policy.appResourcesChanged(bundleID: herald.demo.topic)
        let client = try herald.apnsClient()
        let withCategory = try await herald.push(
            #"{"alert":{"title":"Ann","body":"Lunch?"},"category":"MESSAGE"}"#, client: client)
        let unknown = try await herald.push(#"{"alert":"Hi","category":"NOT_REGISTERED"}"#, client: client)
        let plain = try await herald.push(#"{"alert":"Hi"}"#, client: client)
        try await client.shutdown()
        let expected = try JSONParser.parse(Array(actions.utf8))
        #expect(
            try JSONParser.parse(Array(try #require(withCategory.decisionJSON).utf8)).objectValue?["actions"]
                == expected)
        for row in [unknown, plain] {
            #expect(try JSONParser.parse(Array(try #require(row.decisionJSON).utf8)).objectValue?["actions"] == .null)
        }
        try await herald.stop()
    }
}
