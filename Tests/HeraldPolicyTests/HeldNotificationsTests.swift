import Foundation
import HeraldCore
import HeraldPolicy
import Testing

/// The release rules: `HeldNotifications` as a state machine.
@Suite("Held notifications")
struct HeldNotificationsTests {
    func held(_ id: String, for disposition: Disposition, app: String = Fixture.demoID, collapseID: String? = nil)
        -> HeldNotificationsEvent
    {
        var facts = NotificationFacts(
            id: id, bundleID: app, collapseID: collapseID, expiry: .at(Fixture.now), receivedAt: Fixture.now)
        facts.relevanceScore = 0.5
        let decision = Decision(
            disposition: disposition, effectiveLevel: .active, focusID: disposition == .heldForFocus ? "work" : nil
        )
        return .decided(facts, decision, at: Fixture.now)
    }

    @Test("When the Focus ends, what it held is decided again as of then")
    func focusEndReleases() {
        var machine = HeldNotifications()
        #expect(machine.event(held("f1", for: .heldForFocus)).isEmpty)
        #expect(machine.event(held("s1", for: .heldForSummary)).isEmpty)
        #expect(machine.event(held("x", for: .alerted)).isEmpty)
        #expect(machine.held.count == 2)

        #expect(machine.event(.focusEnded(modeID: "sleep", at: Fixture.now)).isEmpty, "another Focus holds nothing")
        let later = Fixture.now.addingTimeInterval(600)
        let actions = machine.event(.focusEnded(modeID: "work", at: later))
        guard case .redecide(let facts, let cause, let at)? = actions.first, actions.count == 1 else {
            Issue.record("expected one redecide, got \(actions)")
            return
        }
        #expect(facts.id == "f1" && cause == .focusEnded(modeID: "work") && at == later)
        #expect(facts.expiry == nil, "a held notification reached the device: its expiry no longer applies")
        #expect(machine.held.map(\.notification.id) == ["s1"])
    }

    @Test(
        "A released notification that would alert is listed quietly: no banner, no sound, no announcement; badge, lock screen, Notification Center and preview as decided"
    )
    func releasedQuietly() {
        var scenario = Scenario()
        scenario.notification.setsBadge = true
        scenario.preferences.announce = AnnounceSettings(isOn: true, apps: [Fixture.demoID])
        scenario.device.audioRoute = .headphones
        let alerted = scenario.decide()
        #expect(alerted.disposition == .alerted && alerted.sound.plays && alerted.banner == .banner && alerted.announce)

        let quiet = alerted.releasedQuietly()
        #expect(quiet.disposition == .listedSilently)
        #expect(quiet.banner == .none)
        #expect(quiet.sound == .silent)
        #expect(!quiet.announce && !quiet.reasons.contains(.announced))
        #expect(quiet.badge && quiet.lockScreen && quiet.notificationCenter)
        #expect(quiet.preview == alerted.preview && quiet.effectiveLevel == alerted.effectiveLevel)

        // What does not alert stays as decided: held again, listed silently, not delivered
        for disposition in [Disposition.heldForFocus, .heldForSummary, .listedSilently, .notDelivered] {
            let decision = Decision(disposition: disposition, effectiveLevel: .active)
            #expect(decision.releasedQuietly() == decision)
        }
        scenario.notification.level = .passive
        #expect(scenario.decide().releasedQuietly() == scenario.decide())
    }

    @Test("At a summary time the summary's notifications are released as one digest, once")
    func summaryReleasesDigest() {
        var machine = HeldNotifications()
        _ = machine.event(held("s1", for: .heldForSummary))
        _ = machine.event(held("s2", for: .heldForSummary, app: Fixture.chatID))
        _ = machine.event(held("f1", for: .heldForFocus))
        let at = Fixture.now.addingTimeInterval(3600)
        let actions = machine.event(.summaryTimeArrived(at: at))
        guard case .deliverDigest(let digest)? = actions.first, actions.count == 1 else {
            Issue.record("expected a digest, got \(actions)")
            return
        }
        #expect(digest.count == 2 && digest.deliveredAt == at)
        #expect(machine.held.map(\.notification.id) == ["f1"])
        _ = machine.event(held("s3", for: .heldForSummary))
        #expect(machine.event(.summaryTimeArrived(at: at)).isEmpty, "the same summary time is delivered once")
        #expect(machine.held.count == 2)
    }

    @Test("A summary leaves for later what was held after its time")
    func summaryKeepsLaterOnes() {
        var machine = HeldNotifications()
        _ = machine.event(held("s1", for: .heldForSummary))
        #expect(machine.event(.summaryTimeArrived(at: Fixture.now.addingTimeInterval(-1))).isEmpty)
        #expect(machine.held.count == 1)
    }

    @Test("Leaving the summary, or turning it off, releases what waited for it")
    func leavingSummary() {
        var machine = HeldNotifications()
        _ = machine.event(held("s1", for: .heldForSummary))
        _ = machine.event(held("s2", for: .heldForSummary, app: Fixture.chatID))
        let left = machine.event(.appLeftSummary(bundleID: Fixture.chatID, at: Fixture.now))
        #expect(left.count == 1 && machine.held.count == 1)
        let off = machine.event(.summaryTurnedOff(at: Fixture.now))
        #expect(off.count == 1 && machine.isEmpty)
    }

    @Test("Collapse id: a newer notification replaces the held one with the same collapse id")
    func collapseReplaces() {
        var machine = HeldNotifications()
        _ = machine.event(held("old", for: .heldForSummary, collapseID: "score"))
        _ = machine.event(held("other-app", for: .heldForSummary, app: Fixture.chatID, collapseID: "score"))
        let actions = machine.event(held("new", for: .heldForSummary, collapseID: "score"))
        #expect(actions == [.replaced(notificationID: "old", by: "new")])
        #expect(Set(machine.held.map(\.notification.id)) == ["other-app", "new"])
        let delivered = machine.event(held("newest", for: .alerted, collapseID: "score"))
        #expect(delivered == [.replaced(notificationID: "new", by: "newest")])
    }

    @Test("The next-summary preview shows what would be delivered, and when")
    func nextSummaryPreview() {
        var machine = HeldNotifications()
        _ = machine.event(held("s1", for: .heldForSummary))
        _ = machine.event(held("f1", for: .heldForFocus))
        let schedule = Fixture.summary(apps: [Fixture.demoID])
        let preview = machine.nextSummary(after: Fixture.now, schedule: schedule, in: TimeZone(identifier: "UTC")!)
        #expect(preview.at == Fixture.now.addingTimeInterval(10 * 3600), "08:00Z now → 18:00Z")
        #expect(preview.digest.apps.flatMap(\.notifications).map(\.id) == ["s1"])
    }

    @Test("Removed notifications stop waiting")
    func removal() {
        var machine = HeldNotifications()
        _ = machine.event(held("s1", for: .heldForSummary))
        #expect(machine.event(.notificationRemoved(id: "s1", at: Fixture.now)).isEmpty)
        #expect(machine.isEmpty)
    }
}
