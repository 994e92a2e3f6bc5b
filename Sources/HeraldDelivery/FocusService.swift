import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Logging
import ServiceLifecycle
import Synchronization

/// Releases what a Focus held when the Focus changes: at each user's next Focus change
/// (`FocusModes.nextChange`: a manual end time, a scheduled window starting or ending) and when the
/// API signals a change of the user's state (`userStateChanged`), the user's held notifications are
/// decided again by the `HeldNotifications` rules (`DeliveryPolicyEngine.reevaluateHeld`).
///
/// At start-up every user is checked once, so a Focus that ended while Herald was down releases
/// what it held.
///
/// Each pass reports to `progress`, so a move of the manual clock (`ClockController`) can wait
/// until the service has acted at the new time.
final class FocusService: Service, ClockFollowing {
    private struct FocusUser: Sendable {
        var modes: FocusModes
        var timeZone: TimeZone
    }

    private struct State {
        var users: [String: FocusUser] = [:]
        /// Users whose state changed since the last pass.
        var changed: Set<String> = []
    }

    private let engine: DeliveryPolicyEngine
    private let events: PolicyActivityFanOut
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = WakeSignal()
    private let progress = ServiceProgress()

    init(engine: DeliveryPolicyEngine, events: PolicyActivityFanOut, logger: Logger) {
        self.engine = engine
        self.events = events
        self.logger = logger
    }

    /// The user's Focus modes or other state changed: decide their held notifications again soon.
    func userStateChanged(_ userID: String) {
        state.withLock { _ = $0.changed.insert(userID) }
        wake.signal()
    }

    func followed(through date: Date) async -> Date? {
        await progress.wait(through: date) { wake.signal() }
    }

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await self.loop()
        }
    }

    private func loop() async throws {
        defer { progress.finish() }
        let clock = engine.clock
        var lastCheck = clock.now
        let users = try await engine.store.users()
        for user in users {
            await reload(user.userID)
            await reevaluate(user.userID, stateChanged: false, now: lastCheck)
        }
        events.publish(.serviceReady(name: "focus"))
        while !Task.isCancelled {
            let deadline = nextChange(after: lastCheck)
            progress.passed(through: lastCheck, next: deadline)
            await wake.wait(until: deadline, on: clock)
            if Task.isCancelled { break }
            let now = clock.now
            let changed = state.withLock { state in
                defer { state.changed = [] }
                return state.changed
            }
            for userID in changed.sorted() {
                await reload(userID)
                await reevaluate(userID, stateChanged: true, now: now)
            }
            let due = state.withLock { state in
                state.users.filter {
                    !changed.contains($0.key)
                        && ($0.value.modes.nextChange(after: lastCheck, in: $0.value.timeZone).map { $0 <= now }
                            ?? false)
                }
                .keys.sorted()
            }
            for userID in due {
                await reevaluate(userID, stateChanged: false, now: now)
            }
            lastCheck = now
        }
    }

    /// The earliest Focus change of any user after `date`.
    private func nextChange(after date: Date) -> Date? {
        state.withLock { state in
            state.users.values.compactMap { $0.modes.nextChange(after: date, in: $0.timeZone) }.min()
        }
    }

    private func reload(_ userID: String) async {
        do {
            let modes = try await engine.store.focusModes(userID: userID)
            let preferences = try await engine.store.preferences(userID: userID)
            let user = FocusUser(
                modes: FocusModes(modes), timeZone: (preferences ?? DevicePolicyContext.defaultPreferences).timeZone)
            state.withLock { $0.users[userID] = modes.isEmpty ? nil : user }
        } catch {
            logger.error(
                "Could not read a user's Focus modes", metadata: ["user.id": "\(userID)", "error": "\(error)"])
        }
    }

    private func reevaluate(_ userID: String, stateChanged: Bool, now: Date) async {
        do {
            let changes = try await engine.reevaluateHeld(userID: userID, stateChanged: stateChanged, now: now)
            events.publish(.heldReevaluated(userID: userID, at: now, changes: changes))
        } catch {
            logger.error(
                "Could not decide held notifications again", metadata: ["user.id": "\(userID)", "error": "\(error)"])
        }
    }
}
