import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

// Held notifications decided again when a Focus or the summary lets them go.

extension DeliveryPolicyEngine {
    /// Decides again, by the `HeldNotifications` rules, what the user's devices hold at `now`:
    /// notifications held for a Focus that is no longer on are released, quietly (`focusEnded`); when the
    /// user's state changed, those held by the Focus still on (`focusChanged`) and those held for a
    /// summary that was turned off or left by their app are decided again too. Stores the new
    /// decisions, publishes the changed rows to the live hub and returns them in seq order.
    func reevaluateHeld(userID: String, stateChanged: Bool, now: Date) async throws -> [StoredNotification] {
        let devices = try await store.devices(userID: userID)
        let dispositions: Set<Disposition> = stateChanged ? [.heldForFocus, .heldForSummary] : [.heldForFocus]
        var changes: [StoredNotification] = []
        for device in devices {
            let rows = try await store.heldNotifications(deviceIDs: [device.deviceID], dispositions: dispositions)
            guard !rows.isEmpty else { continue }
            let context = try await context(deviceID: device.deviceID)
            var machine = HeldNotifications()
            var seqByID: [String: Int64] = [:]
            var shownByID: [String: (content: ShownContent, resources: AppResources)] = [:]
            for row in rows {
                guard let stored = row.decision else { continue }
                let parsed = try await parsed(row)
                _ = machine.event(.decided(parsed.facts, stored.decision, at: row.receivedAt))
                seqByID[row.id] = row.seq
                shownByID[row.id] = (parsed.content, parsed.resources)
            }
            var events: [HeldNotificationsEvent] = []
            let active = context.activeFocus(at: now)?.mode.id
            var focusIDs: [String] = []
            var summaryApps: [String] = []
            for item in machine.held {
                switch item.hold {
                case .focus(let modeID) where !focusIDs.contains(modeID): focusIDs.append(modeID)
                case .summary where !summaryApps.contains(item.notification.bundleID):
                    summaryApps.append(item.notification.bundleID)
                default: break
                }
            }
            for modeID in focusIDs {
                if modeID != active {
                    events.append(.focusEnded(modeID: modeID, at: now))
                } else if stateChanged {
                    events.append(.focusChanged(modeID: modeID, at: now))
                }
            }
            if stateChanged {
                if !context.summary.isOn {
                    events.append(.summaryTurnedOff(at: now))
                } else {
                    for bundleID in summaryApps
                    where !context.summary.holds(app: bundleID, settings: context.settings(for: bundleID)) {
                        events.append(.appLeftSummary(bundleID: bundleID, at: now))
                    }
                }
            }
            for event in events {
                for action in machine.event(event) {
                    guard case .redecide(let facts, let cause, let at) = action else { continue }
                    let reason: ReasonCode =
                        switch cause {
                        case .focusEnded, .focusChanged: ServerReason.releasedFromFocus
                        case .appLeftSummary, .summaryTurnedOff: ServerReason.releasedFromSummary
                        }
                    var releasedFrom: DecisionRecord.FocusRef?
                    switch cause {
                    case .focusEnded(let modeID), .focusChanged(let modeID):
                        releasedFrom =
                            context.focusModes[modeID].map {
                                DecisionRecord.FocusRef(id: $0.id, name: $0.name, kind: $0.kind)
                            }
                            ?? DecisionRecord.FocusRef(id: modeID, name: modeID, kind: .custom)
                    case .appLeftSummary, .summaryTurnedOff:
                        releasedFrom = nil
                    }
                    let shown = shownByID[facts.id]
                    let decided = try await decide(
                        facts, content: shown?.content ?? ShownContent(nil),
                        resources: shown?.resources ?? AppResources(),
                        isStored: true, context: context, now: at, released: reason, releasedFrom: releasedFrom
                    )
                    let updated = try await store.updateDecision(
                        deviceID: device.deviceID, id: facts.id, decision: decided.stored,
                        releasedAt: decided.disposition.isHeld ? nil : at, at: at
                    )
                    if let updated, updated.seq != seqByID[facts.id] { changes.append(updated) }
                }
            }
        }
        changes.sort { $0.seq < $1.seq }
        hub.publish(changes)
        return changes
    }
}
