import Foundation
import HeraldCore
import HeraldPolicy
import PropertyBased
import Testing

/// Runs `decide` and `HeldNotifications` together over random event sequences, the way a
/// device's notification center does, and checks that no held notification is lost.
@Suite("Held notifications: never lost")
struct HeldNotificationsPropertyTests {
    /// The device's world: which Focus is on, the summary, and every outcome so far.
    struct World {
        var machine = HeldNotifications()
        var focus: FocusMode?
        var clock = Fixture.now
        var arrived: [String] = []
        /// How each notification finally ended: delivered (listed, alerted, not delivered) or digested.
        var outcomes: [String: [String]] = [:]
        var scenario = Scenario.chat

        let modes = [
            Fixture.work(apps: [Fixture.chatID], people: [Fixture.alice], allowsTimeSensitive: true),
            FocusMode(id: "sleep", name: "Sleep", kind: .sleep, allowsTimeSensitive: false),
        ]

        mutating func decideAndRecord(_ facts: NotificationFacts) {
            var scenario = self.scenario
            scenario.notification = facts
            scenario.focus = focus.map { ActiveFocus(mode: $0, activation: .manual, since: clock, until: nil) }
            scenario.now = clock
            let decision = scenario.decide()
            if !decision.disposition.isHeld { outcomes[facts.id, default: []].append(decision.disposition.rawValue) }
            perform(machine.event(.decided(facts, decision, at: clock)))
        }

        mutating func perform(_ actions: [ReleaseAction]) {
            for action in actions {
                switch action {
                case .redecide(let facts, _, _): decideAndRecord(facts)
                case .deliverDigest(let digest):
                    for facts in digest.apps.flatMap(\.notifications) {
                        outcomes[facts.id, default: []].append("digest")
                    }
                case .replaced: Issue.record("no collapse ids were sent")
                }
            }
        }

        mutating func step(_ op: UInt16) {
            clock += 60
            switch op % 8 {
            case 0...4:
                let id = "n\(arrived.count)"
                arrived.append(id)
                let levels: [InterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
                var facts = NotificationFacts(
                    id: id, bundleID: op & 0x100 == 0 ? Fixture.chatID : Fixture.demoID, receivedAt: clock)
                facts.level = levels[Int(op >> 3) % 4]
                facts.isCommunication = op & 0x20 != 0
                facts.sender = op & 0x40 != 0 ? Fixture.alice : Fixture.bob
                decideAndRecord(facts)
            case 5:
                if let ending = focus {
                    focus = nil
                    perform(machine.event(.focusEnded(modeID: ending.id, at: clock)))
                } else {
                    focus = modes[Int(op >> 3) % modes.count]
                }
            case 6:
                perform(machine.event(.summaryTimeArrived(at: clock)))
            default:
                scenario.settings.directMessagesInSummary = op & 0x80 != 0 ? .enabled : .disabled
            }
        }
    }

    @Test("Every held notification is released by its Focus ending or a summary, exactly once")
    func heldAreAlwaysReleased() async {
        let sequences = Gen<UInt16>.value(in: 0...UInt16.max).array(of: 1...80)
        await propertyCheck(count: 300, input: sequences, Gen.bool) { ops, summaryOn in
            var world = World()
            world.scenario.summary = summaryOn ? Fixture.summary(apps: [Fixture.chatID, Fixture.demoID]) : .off
            for op in ops { world.step(op) }
            if let ending = world.focus {
                world.focus = nil
                world.clock += 60
                world.perform(world.machine.event(.focusEnded(modeID: ending.id, at: world.clock)))
            }
            world.clock += 60
            world.perform(world.machine.event(.summaryTimeArrived(at: world.clock)))
            #expect(world.machine.isEmpty, "still held: \(world.machine.held.map(\.notification.id))")
            for id in world.arrived {
                #expect(world.outcomes[id]?.count == 1, "\(id): \(world.outcomes[id] ?? [])")
            }
        }
    }
}
