import Foundation
import HeraldCore
import HeraldPolicy
import Testing

/// The docs/delivery-policy.md rows for authorization and interruption levels.
@Suite("Delivery policy: authorization and levels")
struct LevelRuleTests {
    @Test(
        "Denied or not-determined authorization: not delivered",
        arguments: [
            (AuthorizationStatus.denied, ReasonCode.authorizationDenied),
            (.notDetermined, .authorizationNotDetermined),
        ])
    func unauthorizedIsNotDelivered(status: AuthorizationStatus, reason: ReasonCode) {
        var scenario = Scenario.chat
        scenario.settings.authorizationStatus = status
        scenario.notification.level = .critical
        let decision = scenario.decide()
        #expect(decision.disposition == .notDelivered)
        #expect(Array(decision.reasons) == [reason])
        #expect(!decision.sound.plays && decision.banner == .none && !decision.announce)
    }

    @Test(
        "An interruption level the policy does not recognise: treated as active (critical with a critical-alert sound), and said so"
    )
    func unrecognizedLevel() throws {
        func facts(_ aps: String) throws -> NotificationFacts {
            NotificationFacts(
                id: "n1", bundleID: Fixture.chatID,
                payload: try NotificationPayload(json: Data(#"{"aps":\#(aps)}"#.utf8)),
                receivedAt: Fixture.now
            )
        }
        var scenario = Scenario.chat
        scenario.notification = try facts(#"{"alert":"Hi","sound":"default","interruption-level":"urgent"}"#)
        #expect(scenario.notification.unrecognizedLevel == "urgent")
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted && decision.effectiveLevel == .active)
        #expect(Array(decision.reasons) == [.interruptionLevelUnrecognized])
        #expect(
            scenario.sentences(decision) == [
                #"Treated as active: the interruption level "urgent" is not one iOS recognises (passive, active, time-sensitive, critical)."#
            ])

        // With a critical-alert sound it counts as critical, and still says the level was not recognised
        scenario.notification = try facts(
            #"{"alert":"Hi","sound":{"critical":1,"name":"default"},"interruption-level":"Critical"}"#)
        let critical = scenario.decide()
        #expect(critical.effectiveLevel == .critical && critical.sound.bypassesRinger)
        #expect(Array(critical.reasons) == [.interruptionLevelUnrecognized])
        #expect(
            scenario.sentences(critical) == [
                #"Treated as critical: the interruption level "Critical" is not one iOS recognises (passive, active, time-sensitive, critical), and the sound is a critical alert."#
            ])

        // Without the level as sent, the sentence still says what happened
        #expect(
            ReasonCode.interruptionLevelUnrecognized.explanation(ExplanationContext(appName: "Chat"))
                == "The interruption level sent is not one iOS recognises (passive, active, time-sensitive, critical): treated as active, or as critical with a critical-alert sound."
        )

        // A known level, or none, records nothing of the kind
        for aps in [#"{"alert":"Hi","interruption-level":"time-sensitive"}"#, #"{"alert":"Hi"}"#] {
            scenario.notification = try facts(aps)
            #expect(scenario.notification.unrecognizedLevel == nil)
            #expect(!scenario.decide().reasons.contains(.interruptionLevelUnrecognized))
        }
    }

    @Test("Provisional authorization: delivered quietly to the list only")
    func provisionalIsQuiet() {
        var scenario = Scenario()
        scenario.settings.authorizationStatus = .provisional
        scenario.notification.setsBadge = true
        scenario.summary = Fixture.summary(apps: [Fixture.demoID])
        scenario.focus = Fixture.on(Fixture.work())
        let decision = scenario.decide()
        #expect(decision.disposition == .listedSilently)
        #expect(decision.notificationCenter)
        #expect(!decision.lockScreen && decision.banner == .none && !decision.sound.plays && !decision.badge)
        #expect(decision.reasons.contains(.provisional))
    }

    @Test("Passive: listed silently, never breaks through Focus or Summary, never announced")
    func passiveIsListedSilently() {
        var scenario = Scenario.chat
        scenario.notification.level = .passive
        scenario.notification.setsBadge = true
        scenario.device.audioRoute = .headphones
        scenario.preferences.announce = AnnounceSettings(isOn: true, apps: [Fixture.chatID])
        let quiet = scenario.decide()
        #expect(quiet.disposition == .listedSilently)
        #expect(quiet.banner == .none && !quiet.sound.plays && !quiet.announce)
        #expect(quiet.badge && quiet.lockScreen && quiet.notificationCenter)
        #expect(quiet.reasons.contains(.passiveQuiet))

        var focused = scenario
        focused.focus = Fixture.on(Fixture.work(allowsTimeSensitive: true))
        #expect(focused.decide().disposition == .heldForFocus)

        var summarized = scenario
        summarized.summary = Fixture.summary(apps: [Fixture.chatID])
        summarized.notification.isCommunication = true
        #expect(summarized.decide().disposition == .heldForSummary)
    }

    @Test("Active: alerts with banner, sound and badge; held by a Focus or the summary")
    func activeAlertsUnlessHeld() {
        var scenario = Scenario()
        scenario.notification.setsBadge = true
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted)
        #expect(decision.banner == .banner && decision.sound.plays && decision.badge)
        #expect(decision.effectiveLevel == .active)
        #expect(decision.reasons.isEmpty)

        var focused = scenario
        focused.focus = Fixture.on(Fixture.work())
        let held = focused.decide()
        #expect(held.disposition == .heldForFocus && held.focusID == "work")
        #expect(held.banner == .none && !held.sound.plays && !held.badge && !held.announce)

        var summarized = scenario
        summarized.summary = Fixture.summary(apps: [Fixture.demoID])
        #expect(summarized.decide().disposition == .heldForSummary)

        var bySetting = scenario
        bySetting.summary = Fixture.summary(apps: [])
        bySetting.settings.scheduledDelivery = .enabled
        #expect(bySetting.decide().disposition == .heldForSummary)
    }

    @Test("Time-sensitive with entitlement and setting: bypasses Summary, and Focus only if it allows time-sensitive")
    func timeSensitiveBreaksThrough() {
        var scenario = Scenario.chat
        scenario.notification.level = .timeSensitive
        scenario.summary = Fixture.summary(apps: [Fixture.chatID])
        scenario.focus = Fixture.on(Fixture.work(allowsTimeSensitive: true))
        let through = scenario.decide()
        #expect(through.disposition == .alerted && through.effectiveLevel == .timeSensitive)
        #expect(Array(through.reasons) == [.summaryBypassedTimeSensitive, .focusAllowsTimeSensitive])

        scenario.focus = Fixture.on(Fixture.work(allowsTimeSensitive: false))
        let held = scenario.decide()
        #expect(held.disposition == .heldForFocus)
        #expect(held.reasons.contains(.focusDisallowsTimeSensitive))
    }

    @Test("Time-sensitive without the entitlement or the setting: treated as active", arguments: [false, true])
    func timeSensitiveFallsBackToActive(entitled: Bool) {
        var scenario = entitled ? Scenario.chat : Scenario()
        if entitled { scenario.settings.timeSensitive = .disabled }
        scenario.notification.level = .timeSensitive
        scenario.summary = Fixture.summary(apps: [scenario.app.bundleID])
        let decision = scenario.decide()
        #expect(decision.effectiveLevel == .active)
        #expect(decision.disposition == .heldForSummary)
        #expect(decision.reasons.contains(entitled ? .timeSensitiveTurnedOff : .timeSensitiveNotEntitled))
    }

    @Test("Critical with entitlement and setting: alerts through Focus, Summary and a silent ringer at its volume")
    func criticalAlwaysAlerts() {
        var scenario = Scenario.chat
        scenario.notification.level = .critical
        scenario.notification.criticalVolume = 0.8
        scenario.notification.requestsSound = false
        scenario.settings.sound = .disabled
        scenario.settings.alertStyle = .none
        scenario.summary = Fixture.summary(apps: [Fixture.chatID])
        scenario.focus = Fixture.on(Fixture.work(allowsTimeSensitive: false))
        scenario.device.isRingerSilent = true
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted && decision.effectiveLevel == .critical)
        #expect(decision.sound == SoundDecision(plays: true, bypassesRinger: true, volume: 0.8))
        #expect(decision.banner == .banner)
        #expect(Array(decision.reasons) == [.criticalBypassesSummary, .criticalBypassesFocus, .criticalBypassesRinger])
    }

    @Test("Critical without the entitlement or the setting: treated as time-sensitive, with a reason")
    func criticalFallsBackToTimeSensitive() {
        var notEntitled = Scenario()
        notEntitled.app.entitlements = Entitlements(timeSensitive: true)
        notEntitled.notification.level = .critical
        notEntitled.device.isRingerSilent = true
        let decision = notEntitled.decide()
        #expect(decision.effectiveLevel == .timeSensitive)
        #expect(!decision.sound.plays && !decision.sound.bypassesRinger)
        #expect(Array(decision.reasons) == [.criticalNotEntitled, .ringerSilent])

        var turnedOff = Scenario.chat
        turnedOff.settings.criticalAlerts = .disabled
        turnedOff.notification.level = .critical
        turnedOff.focus = Fixture.on(Fixture.work(allowsTimeSensitive: false))
        let held = turnedOff.decide()
        #expect(held.effectiveLevel == .timeSensitive && held.disposition == .heldForFocus)
        #expect(held.reasons.contains(.criticalTurnedOff))

        var neither = Scenario()
        neither.notification.level = .critical
        #expect(neither.decide().effectiveLevel == .active)
        #expect(Array(neither.decide().reasons) == [.criticalNotEntitled, .timeSensitiveNotEntitled])
    }
}
