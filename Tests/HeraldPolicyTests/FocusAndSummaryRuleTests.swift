import Foundation
import HeraldCore
import HeraldPolicy
import Testing

/// The docs/delivery-policy.md rows for communication notifications and Focus allow lists.
@Suite("Delivery policy: communication and Focus")
struct FocusAndSummaryRuleTests {
    @Test("Communication: breaks through a Focus that allows the sender, however the handle is written")
    func communicationFromAllowedPerson() {
        var scenario = Scenario.chat
        scenario.notification.isCommunication = true
        scenario.notification.sender = PersonHandle("555-010-0200", kind: .phoneNumber)
        scenario.focus = Fixture.on(Fixture.work(people: [Fixture.bob, Fixture.alice]))
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted)
        #expect(Array(decision.reasons) == [.focusAllowedPerson])

        scenario.notification.sender = PersonHandle("carol@example.com", kind: .emailAddress)
        #expect(scenario.decide().disposition == .heldForFocus)

        scenario.notification.sender = PersonHandle(" ALICE@example.COM ", kind: .emailAddress)
        #expect(scenario.decide().disposition == .alerted)
    }

    @Test(
        "Phone numbers: a Focus that allows +1 (555) 010-0200 lets the call through however the number is written",
        arguments: [
            "15550100200", "+15550100200", "+1 555 010 0200", "1-555-010-0200", "555-010-0200", "(555) 010-0200",
            "5550100200",
            "+1 (555) 010-0200", "0015550100200",
        ])
    func phoneFormsMatch(sender: String) {
        var scenario = Scenario.chat
        scenario.notification.isCommunication = true
        scenario.notification.sender = PersonHandle(sender, kind: .phoneNumber)
        scenario.focus = Fixture.on(Fixture.work(people: [Fixture.bob]))
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted)
        #expect(Array(decision.reasons) == [.focusAllowedPerson])
        let handle = PersonHandle(sender, kind: .phoneNumber)
        #expect(handle.matches(Fixture.bob) && Fixture.bob.matches(handle), "matching is symmetric")
    }

    @Test(
        "Phone numbers: another country code, another number with the same last digits, or too few digits is someone else",
        arguments: [
            "+44 555 010 0200", "+61 555 010 0200", "+7 555 010 0200", "25550100200", "+1 (555) 010-0201",
            "+1 (444) 010-0200",
            "(444) 010-0200", "10-0200", "0200", "+", "",
        ])
    func phoneFormsDoNotMatch(sender: String) {
        var scenario = Scenario.chat
        scenario.notification.isCommunication = true
        scenario.notification.sender = PersonHandle(sender, kind: .phoneNumber)
        scenario.focus = Fixture.on(Fixture.work(people: [Fixture.bob]))
        #expect(scenario.decide().disposition == .heldForFocus)
        let handle = PersonHandle(sender, kind: .phoneNumber)
        #expect(!handle.matches(Fixture.bob) && !Fixture.bob.matches(handle))
    }

    @Test("Phone numbers: numbers without a country code match one that has it, and one another when equal")
    func phoneNationalForms() {
        let national = PersonHandle("555-010-0200", kind: .phoneNumber)
        // Without its country code, a number cannot tell which country it is in: it matches either.
        #expect(national.matches(PersonHandle("+44 555 010 0200", kind: .phoneNumber)))
        #expect(national.matches(PersonHandle("15550100200", kind: .phoneNumber)))
        #expect(national.matches(PersonHandle("(555) 0100 200", kind: .phoneNumber)))
        #expect(!national.matches(PersonHandle("555-010-0201", kind: .phoneNumber)))
        // Seven digits are enough (a local number without its area code), six are not.
        #expect(PersonHandle("010-0200", kind: .phoneNumber).matches(Fixture.bob))
        #expect(!PersonHandle("10-0200", kind: .phoneNumber).matches(Fixture.bob))
        // Two numbers written with their country code are the same only with the same digits.
        #expect(
            !PersonHandle("+1 555 010 0200", kind: .phoneNumber).matches(
                PersonHandle("+61 555 010 0200", kind: .phoneNumber)))
        // Phone numbers never match another kind of handle.
        #expect(!PersonHandle("15550100200", kind: .appSpecific).matches(Fixture.bob))
    }

    @Test("Communication: bypasses the Summary unless direct messages are in it")
    func communicationBypassesSummary() {
        var scenario = Scenario.chat
        scenario.notification.isCommunication = true
        scenario.summary = Fixture.summary(apps: [Fixture.chatID])
        let bypass = scenario.decide()
        #expect(bypass.disposition == .alerted)
        #expect(Array(bypass.reasons) == [.communicationBypassesSummary])

        scenario.settings.directMessagesInSummary = .enabled
        let held = scenario.decide()
        #expect(held.disposition == .heldForSummary)
        #expect(Array(held.reasons) == [.directMessagesInSummary, .summaryHeld])
    }

    @Test("Communication from an app without the entitlement is an ordinary notification")
    func communicationNeedsEntitlement() {
        var scenario = Scenario()
        scenario.notification.isCommunication = true
        scenario.notification.sender = Fixture.alice
        scenario.summary = Fixture.summary(apps: [Fixture.demoID])
        scenario.focus = Fixture.on(Fixture.work(people: [Fixture.alice]))
        let decision = scenario.decide()
        #expect(decision.disposition == .heldForSummary)
        #expect(decision.reasons.contains(.communicationNotEntitled))
    }

    @Test("An app allowed by the active Focus breaks through it")
    func allowedAppBreaksThrough() {
        var scenario = Scenario()
        scenario.focus = Fixture.on(Fixture.work(apps: [Fixture.demoID]))
        let decision = scenario.decide()
        #expect(decision.disposition == .alerted)
        #expect(Array(decision.reasons) == [.focusAllowedApp])

        scenario.notification.level = .passive
        #expect(scenario.decide().disposition == .listedSilently)
    }

    @Test("Silence-from mode: listed apps and people are held, everyone else breaks through")
    func silenceFromMode() {
        var scenario = Scenario.chat
        scenario.notification.isCommunication = true
        scenario.notification.sender = Fixture.alice
        scenario.focus = Fixture.on(
            Fixture.work(filterMode: .silenceFrom, apps: [Fixture.demoID], people: [Fixture.bob]))
        #expect(scenario.decide().disposition == .alerted)
        #expect(Array(scenario.decide().reasons) == [.focusAppNotSilenced])

        scenario.notification.sender = Fixture.bob
        #expect(scenario.decide().disposition == .heldForFocus)
        #expect(scenario.decide().reasons.contains(.focusSilencedPerson))

        var silencedApp = Scenario()
        silencedApp.focus = scenario.focus
        #expect(Array(silencedApp.decide().reasons) == [.focusSilencedApp])
    }

    @Test("The summary holds before the Focus: a held-for-summary notification waits only for the summary")
    func summaryBeforeFocus() {
        var scenario = Scenario()
        scenario.summary = Fixture.summary(apps: [Fixture.demoID])
        scenario.focus = Fixture.on(Fixture.work())
        let decision = scenario.decide()
        #expect(decision.disposition == .heldForSummary && decision.focusID == nil)
    }

    @Test("A summary without times holds nothing")
    func summaryOffHoldsNothing() {
        var scenario = Scenario()
        scenario.summary = SummarySchedule.off
        scenario.summary.apps = [Fixture.demoID]
        scenario.settings.scheduledDelivery = .enabled
        #expect(scenario.decide().disposition == .alerted)
    }

    @Test("Explanations name the Focus and the app")
    func explanations() {
        var scenario = Scenario()
        scenario.focus = Fixture.on(Fixture.work())
        let decision = scenario.decide()
        #expect(scenario.sentences(decision) == ["Held: the Work Focus is on and Demo is not an allowed app."])

        scenario.focus = Fixture.on(FocusMode(id: "dnd", name: "Do Not Disturb", kind: .doNotDisturb))
        #expect(scenario.sentences(scenario.decide()) == ["Held: Do Not Disturb is on and Demo is not an allowed app."])

        var critical = Scenario.chat
        critical.notification.level = .critical
        critical.notification.criticalVolume = 0.5
        critical.device.isRingerSilent = true
        #expect(
            critical.sentences(critical.decide()) == [
                "Sound played at 50% volume although the ringer is silent: critical alerts bypass it."
            ])
    }

    @Test("Every reason code has its own sentence")
    func everyCodeExplains() {
        let context = ExplanationContext(appName: "Demo", focus: Fixture.work(), sender: Fixture.alice)
        let codes: [ReasonCode] = [
            .expired, .expiredNoSession, .authorizationDenied, .authorizationNotDetermined, .criticalNotEntitled,
            .criticalTurnedOff, .timeSensitiveNotEntitled, .timeSensitiveTurnedOff, .communicationNotEntitled,
            .provisional, .summaryHeld, .directMessagesInSummary, .criticalBypassesSummary,
            .summaryBypassedTimeSensitive, .communicationBypassesSummary, .focusHeld, .focusSilencedApp,
            .focusSilencedPerson, .focusDisallowsTimeSensitive, .criticalBypassesFocus, .focusAllowedApp,
            .focusAppNotSilenced, .focusAllowedPerson, .focusAllowsTimeSensitive, .passiveQuiet,
            .foregroundWillPresent, .foregroundNoDelegate, .bannersOff, .soundOff, .ringerSilent,
            .criticalBypassesRinger, .announced, .previewsHiddenNever, .previewsHiddenLocked,
        ]
        let sentences = codes.map { $0.explanation(context) }
        #expect(Set(sentences).count == codes.count)
        #expect(sentences.allSatisfy { $0.hasSuffix(".") && !$0.contains("Rule ") })
        #expect(ReasonCode(rawValue: "from-the-future").explanation(context) == "Rule from-the-future applied.")
    }
}
