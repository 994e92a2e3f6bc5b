import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("Delivery decisions on the APNs push pipeline (in-process server, test clock)")
struct DeliveryDecisionTests {
    static let alert = #"{"alert":{"title":"Hello","body":"World"},"sound":"default"}"#

    @Test("a push to a user who set nothing is alerted, stored with its decision, and explained")
    func defaultDecision() async throws {
        let herald = try await PolicyHerald.start()
        // An unlocked device: the default Show Previews (When Unlocked) shows the content.
        try await herald.unlockDevice()
        let client = try herald.apnsClient()
        let row = try await herald.push(Self.alert, client: client)

        #expect(row.disposition == .alerted)
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(row.decisionJSON).utf8))
        #expect(decision.disposition == .alerted)
        #expect(decision.banner == .banner)
        #expect(decision.sound.plays)
        #expect(decision.preview == .full)

        let explanation = herald.application.policy.explain(row)
        #expect(json(explanation, "notification_id")?.stringValue == row.id)
        #expect(json(explanation, "disposition")?.stringValue == "alerted")
        #expect(json(explanation, "decision", "banner")?.stringValue == "banner")
        let lines = reasons(explanation)
        #expect(lines.map(\.code) == ["allowed"])
        #expect(
            lines.first?.sentence == "Alerted: Demo may send notifications, and no Focus or Scheduled Summary held it.")
        try await client.shutdown()
        try await herald.stop()
    }

    @Test(
        "Show Previews defaults to When Unlocked: the API says when_unlocked and the policy hides a new user's preview on a locked device, shows it unlocked"
    )
    func defaultShowPreviews() async throws {
        let herald = try await PolicyHerald.start()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let userID = try await herald.userID()
        #expect(try await herald.store.preferences(userID: userID) == nil, "the user saved no preferences")

        // The API reports the default
        let preferences = try JSONDecoder().decode(
            JSONValue.self, from: try await api.send("GET", path: "/v1/me/preferences"))
        #expect(json(preferences, "show_previews")?.stringValue == "when_unlocked")

        // The demo device starts unlocked (a phone in use); locked, its pushes have their preview hidden
        #expect(try await herald.store.deviceState(deviceID: herald.demo.deviceID)?.isLocked == false)
        _ = try await api.setDeviceState(deviceID: herald.demo.deviceID, fields: ["locked": .bool(true)])
        let client = try herald.apnsClient()
        let locked = try await herald.push(Self.alert, client: client)
        let lockedDecision = try JSONDecoder().decode(Decision.self, from: Data(try #require(locked.decisionJSON).utf8))
        #expect(lockedDecision.preview.isHidden)
        #expect(lockedDecision.reasons.contains(.previewsHiddenLocked))
        let explained = try JSONDecoder().decode(
            JSONValue.self, from: try await api.decision(notificationID: locked.id))
        #expect(json(explained, "decision", "preview", "hidden") == .bool(true))
        let lines = jsonItems(json(explained, "reasons")).map {
            (json($0, "code")?.stringValue, json($0, "sentence")?.stringValue)
        }
        #expect(
            lines.contains {
                $0 == "previews-hidden-locked"
                    && $1 == "Preview hidden: Show Previews is set to When Unlocked and the device was locked."
            })

        // Unlocked, the same push shows its content
        _ = try await api.setDeviceState(deviceID: herald.demo.deviceID, fields: ["locked": .bool(false)])
        let unlocked = try await herald.push(Self.alert, client: client)
        let unlockedDecision = try JSONDecoder().decode(
            Decision.self, from: Data(try #require(unlocked.decisionJSON).utf8))
        #expect(unlockedDecision.preview == .full)
        #expect(!unlockedDecision.reasons.contains(.previewsHiddenLocked))
        try await client.shutdown()
        try await api.shutdown()
        try await herald.stop()
    }

    @Test(
        "a Focus that does not allow the app holds the push; its end releases it quietly (listed, no banner, no sound), with a new seq, live"
    )
    func focusHoldsAndReleases() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let start = herald.clock.now
        // Given the Work Focus on until 10 minutes from now, allowing no app
        let work = FocusMode(
            id: "work", name: "Work", kind: .work,
            manual: .on(since: start.addingTimeInterval(-60), until: start.addingTimeInterval(600)))
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)

        // When a push with a sound and a badge arrives
        let client = try herald.apnsClient()
        let held = try await herald.push(
            #"{"alert":{"title":"Hello","body":"World"},"sound":"default","badge":3}"#, client: client)
        try await client.shutdown()

        // Then it is held, and the explanation names the Focus and the app
        #expect(held.disposition == .heldForFocus)
        let heldLines = reasons(herald.application.policy.explain(held))
        #expect(
            heldLines.contains {
                $0.code == "focus-held" && $0.sentence == "Held: the Work Focus is on and Demo is not an allowed app."
            })

        // When the Focus ends (the test clock passes its end), a session of the device sees the release
        let session = herald.application.hub.subscribe(deviceID: herald.demo.deviceID)
        herald.clock.advance(to: start.addingTimeInterval(601))
        let changes = try await herald.heldReevaluated(userID)

        // Then it is decided again and released quietly: listed on the Lock Screen and in Notification
        // Center without a banner or sound (iOS does not alert again for what a Focus held), its badge
        // applied, with a new seq and its release time, and live
        let released = try #require(changes.first { $0.id == held.id })
        #expect(released.disposition == .listedSilently)
        #expect(released.seq > held.seq)
        #expect(released.releasedAt == start.addingTimeInterval(601))
        try expectReleasedQuietly(released, badge: true)
        let stored = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: held.id))
        #expect(stored.disposition == .listedSilently)
        try expectReleasedQuietly(stored, badge: true)
        #expect(try await herald.store.appBadges(deviceID: herald.demo.deviceID).map(\.badge) == [3])
        let live = await session.next()
        guard case .changes(let rows)? = live, let streamed = rows.first(where: { $0.id == held.id }) else {
            Issue.record("the session did not get the released notification")
            return
        }
        #expect(streamed.disposition == .listedSilently)
        try expectReleasedQuietly(streamed, badge: true)
        session.finish()
        let releasedLines = reasons(herald.application.policy.explain(released))
        #expect(
            releasedLines.first { $0.code == "released-focus-ended" }?.sentence
                == "Released quietly when the Work Focus ended or changed: listed without a banner or sound, as what a Focus held does not alert again."
        )
        #expect(!releasedLines.contains { $0.code == "allowed" })
        #expect(json(herald.application.policy.explain(released), "decision", "banner")?.stringValue == "none")
        try await herald.stop()
    }

    @Test(
        "a time-sensitive push of an entitled app breaks through a Focus that allows time-sensitive, not one that doesn't"
    )
    func timeSensitiveAndFocus() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let now = herald.clock.now
        let client = try herald.apnsClient()
        let timeSensitive = #"{"alert":{"body":"Your ride is here"},"interruption-level":"time-sensitive"}"#

        var reading = FocusMode(
            id: "reading", name: "Reading", kind: .reading, allowsTimeSensitive: true,
            manual: .on(since: now.addingTimeInterval(-60), until: nil))
        try await herald.store.upsertFocusMode(reading, userID: userID)
        try await herald.userStateChanged(userID)
        let through = try await herald.push(timeSensitive, client: client)
        #expect(through.disposition == .alerted)
        let lines = reasons(herald.application.policy.explain(through))
        #expect(
            lines.contains {
                $0.code == "focus-allows-time-sensitive"
                    && $0.sentence
                        == "Delivered during the Reading Focus: it lets time-sensitive notifications through."
            })

        reading.allowsTimeSensitive = false
        try await herald.store.upsertFocusMode(reading, userID: userID)
        try await herald.userStateChanged(userID)
        let held = try await herald.push(timeSensitive, client: client)
        #expect(held.disposition == .heldForFocus)
        #expect(reasons(herald.application.policy.explain(held)).map(\.code).contains("focus-disallows-time-sensitive"))
        try await client.shutdown()
        try await herald.stop()
    }

    @Test(
        "an entitled, allowed critical alert bypasses the summary, a Focus without time-sensitive, and a silent ringer")
    func criticalBypassesEverything() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let now = herald.clock.now
        let bundleID = herald.demo.topic
        // Given the app in the summary, a Focus that lets nothing through, and a silent ringer
        try await herald.store.setAppSettings(
            AppNotificationSettings(authorizationStatus: .authorized, criticalAlerts: .enabled), userID: userID,
            bundleID: bundleID
        )
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [TimeOfDay(hour: 8)], apps: [bundleID]), userID: userID)
        try await herald.store.upsertFocusMode(
            FocusMode(
                id: "dnd", name: "Do Not Disturb", kind: .doNotDisturb, allowsTimeSensitive: false,
                manual: .on(since: now.addingTimeInterval(-60), until: nil)),
            userID: userID
        )
        try await herald.store.setDeviceState(DeviceState(isRingerSilent: true), deviceID: herald.demo.deviceID)
        await herald.application.policy.deviceStateChanged(deviceID: herald.demo.deviceID)
        try await herald.userStateChanged(userID)

        let client = try herald.apnsClient()
        let active = try await herald.push(Self.alert, client: client)
        let critical = try await herald.push(
            #"{"alert":{"body":"Flood warning"},"sound":{"critical":1,"name":"default","volume":0.5},"interruption-level":"critical"}"#,
            client: client
        )
        try await client.shutdown()

        #expect(active.disposition == .heldForSummary)
        #expect(critical.disposition == .alerted)
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(critical.decisionJSON).utf8))
        #expect(decision.effectiveLevel == .critical)
        #expect(decision.sound == SoundDecision(plays: true, bypassesRinger: true, volume: 0.5))
        let lines = reasons(herald.application.policy.explain(critical))
        let codes = lines.map(\.code)
        #expect(codes.contains("critical-bypasses-summary"))
        #expect(codes.contains("critical-bypasses-focus"))
        #expect(
            lines.contains {
                $0.code == "critical-bypasses-ringer"
                    && $0.sentence
                        == "Sound played at 50% volume although the ringer is silent: critical alerts bypass it."
            })
        #expect(
            lines.contains {
                $0.code == "critical-bypasses-focus"
                    && $0.sentence == "Delivered during Do Not Disturb: critical alerts always break through."
            })
        try await herald.stop()
    }

    @Test(
        "an interruption level APNs does not know is accepted, treated as active, and the explain endpoint says it was not recognised"
    )
    func unrecognizedLevel() async throws {
        let herald = try await PolicyHerald.start()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let client = try herald.apnsClient()
        let row = try await herald.push(
            #"{"alert":{"body":"Hi"},"sound":"default","interruption-level":"urgent"}"#, client: client)
        try await client.shutdown()

        #expect(row.disposition == .alerted)
        let decision = try JSONDecoder().decode(Decision.self, from: Data(try #require(row.decisionJSON).utf8))
        #expect(decision.effectiveLevel == .active)
        #expect(decision.reasons.contains(.interruptionLevelUnrecognized))
        let sentence =
            #"Treated as active: the interruption level "urgent" is not one iOS recognises (passive, active, time-sensitive, critical)."#
        #expect(
            reasons(herald.application.policy.explain(row)).contains {
                $0.code == "interruption-level-unrecognized" && $0.sentence == sentence
            })
        let explained = try JSONDecoder().decode(JSONValue.self, from: try await api.decision(notificationID: row.id))
        let lines = jsonItems(json(explained, "reasons")).map {
            (json($0, "code")?.stringValue, json($0, "sentence")?.stringValue)
        }
        #expect(lines.contains { $0 == "interruption-level-unrecognized" && $1 == sentence })
        #expect(!lines.contains { $0.0 == "allowed" })
        #expect(json(explained, "decision", "effective_level")?.stringValue == "active")
        try await api.shutdown()
        try await herald.stop()
    }

    @Test("a push of an app the user turned off is stored as notDelivered and explained")
    func deniedIsStoredNotDelivered() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        try await herald.store.setAppSettings(
            AppNotificationSettings(authorizationStatus: .denied), userID: userID, bundleID: herald.demo.topic)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let row = try await herald.push(Self.alert, client: client)
        try await client.shutdown()
        #expect(row.disposition == .notDelivered)
        #expect(
            reasons(herald.application.policy.explain(row)).map(\.sentence) == [
                "Not delivered: notifications from Demo are turned off."
            ])
        try await herald.stop()
    }
}
