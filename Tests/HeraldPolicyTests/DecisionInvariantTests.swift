import Foundation
import HeraldCore
import HeraldPolicy
import PropertyBased
import Testing

/// Invariants of `decide` over generated scenarios.
@Suite("Delivery policy: invariants")
struct DecisionInvariantTests {
    @Test("Passive never alerts or announces")
    func passiveNeverAlerts() async {
        await propertyCheck(count: 2000, input: Scenario.generator) { scenario in
            var scenario = scenario
            scenario.notification.level = .passive
            let decision = scenario.decide()
            #expect(decision.disposition != .alerted, "\(scenario)")
            #expect(decision.banner == .none && !decision.sound.plays && !decision.announce, "\(scenario)")
        }
    }

    @Test("An entitled, user-allowed critical alert always alerts with a sound that bypasses the ringer")
    func criticalAlwaysAlerts() async {
        await propertyCheck(count: 2000, input: Scenario.generator) { scenario in
            var scenario = scenario
            scenario.notification.level = .critical
            scenario.app.entitlements.criticalAlerts = true
            scenario.settings.criticalAlerts = .enabled
            scenario.settings.authorizationStatus = .authorized
            guard scenario.isDeliverable else { return }
            let decision = scenario.decide()
            #expect(decision.disposition == .alerted && decision.banner != .none, "\(scenario)")
            #expect(decision.sound.plays && decision.sound.bypassesRinger, "\(scenario)")
            #expect(decision.effectiveLevel == .critical)
        }
    }

    @Test("Denied or not-determined authorization is never delivered")
    func unauthorizedNeverDelivered() async {
        await propertyCheck(count: 1000, input: Scenario.generator, Gen.bool) { scenario, denied in
            var scenario = scenario
            scenario.settings.authorizationStatus = denied ? .denied : .notDetermined
            let decision = scenario.decide()
            #expect(decision.disposition == .notDelivered, "\(scenario)")
            #expect(!decision.sound.plays && decision.banner == .none && !decision.announce && !decision.badge)
        }
    }

    @Test("Announce only when alerted, never for passive or held notifications, only on headphones or in the car")
    func announceOnlyWhenAlerted() async {
        await propertyCheck(count: 3000, input: Scenario.generator) { scenario in
            let decision = scenario.decide()
            guard decision.announce else { return }
            #expect(decision.disposition == .alerted, "\(scenario)")
            #expect(decision.effectiveLevel != .passive, "\(scenario)")
            #expect([.headphones, .car].contains(scenario.device.audioRoute), "\(scenario)")
            #expect(scenario.preferences.announce.isOn)
        }
    }

    @Test("Time-sensitive and critical notifications are never held by the summary")
    func timeSensitiveNeverHeldBySummary() async {
        await propertyCheck(count: 3000, input: Scenario.generator) { scenario in
            let decision = scenario.decide()
            if decision.effectiveLevel == .timeSensitive || decision.effectiveLevel == .critical {
                #expect(decision.disposition != .heldForSummary, "\(scenario)")
            }
        }
    }

    @Test("Held notifications do not interrupt, and say what holds them")
    func heldIsQuiet() async {
        await propertyCheck(count: 3000, input: Scenario.generator) { scenario in
            let decision = scenario.decide()
            guard decision.disposition.isHeld else { return }
            #expect(decision.banner == .none && !decision.sound.plays && !decision.announce && !decision.badge)
            if decision.disposition == .heldForFocus {
                #expect(decision.focusID == scenario.focus?.mode.id && decision.focusID != nil)
            } else {
                #expect(scenario.summary.isOn, "nothing is held for a summary that never comes")
            }
        }
    }

    @Test("Sound only plays on a silent ringer for critical alerts; the effective level never rises")
    func ringerAndLevel() async {
        await propertyCheck(count: 3000, input: Scenario.generator) { scenario in
            let decision = scenario.decide()
            if scenario.device.isRingerSilent, decision.sound.plays {
                #expect(decision.effectiveLevel == .critical, "\(scenario)")
            }
            #expect(decision.effectiveLevel.rank <= scenario.notification.level.rank)
            #expect(
                !decision.reasons.isEmpty || decision.disposition == .alerted || decision.disposition == .listedSilently
            )
        }
    }

    @Test("Decisions survive a JSON round trip, reasons in order")
    func codableRoundTrip() async throws {
        await propertyCheck(count: 300, input: Scenario.generator) { scenario in
            let decision = scenario.decide()
            let data = try JSONEncoder().encode(decision)
            #expect(try JSONDecoder().decode(Decision.self, from: data) == decision)
        }
        var reasons: ReasonCodes = [.focusHeld, .provisional, ReasonCode(rawValue: "newer-rule")]
        reasons.insert(.provisional)
        #expect(reasons.map(\.rawValue) == ["provisional", "focus-held", "newer-rule"])
    }
}
