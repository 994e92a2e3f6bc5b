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
/// At start-up every user with a Focus mode or a held notification is checked once, so a Focus that
/// ended while Herald was down releases what it held.
///
/// Each pass reports to `progress`, so a move of the manual clock (`ClockController`) can wait
/// until the service has acted at the new time.
///
/// A user whose held notifications could not be decided again (a full disk, say) is not skipped: the
/// pass is tried again after a wait on the wall clock (1 s, doubling up to `maximumRetryDelay`, also
/// under a manual clock, which does not move by itself) until it succeeds. Deciding again is
/// idempotent: what was released is no longer held.
final class FocusService: Service, ClockFollowing, ScheduledService {
    private struct FocusUser: Sendable {
        var modes: FocusModes
        var timeZone: TimeZone
    }

    private struct State {
        var users: [String: FocusUser] = [:]
        /// Users whose state changed since the last pass.
        var changed: Set<String> = []
        /// Users to decide again at a later pass because this one failed, with whether their state
        /// had changed (then their Focus modes are read again too).
        var failed: [String: Bool] = [:]
    }

    /// The longest wait between two tries of a user whose held notifications could not be decided.
    static let maximumRetryDelay: Duration = .seconds(10)

    private let engine: DeliveryPolicyEngine
    private let events: PolicyActivityFanOut
    private let logger: Logger
    private let state = HeraldMutex(State())
    private let wake = WakeSignal()
    let progress = ServiceProgress()

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

    /// Runs the scheduler alone (not under `ScheduledServices`) until graceful shutdown.
    func run() async throws {
        try await runAlone()
    }

    func loop() async throws {
        let clock = engine.clock
        var lastCheck = clock.now
        // Only the users a Focus change can concern: those with a Focus mode (their schedule) or a
        // held notification (released if its Focus ended while Herald was down). Every user, read
        // one by one, was minutes of reads at start-up with a million of them — and shutdown
        // waited for the pass to end.
        for userID in try await engine.store.usersWithFocusOrHeld() {
            if Task.isCancelled { break }
            await reload(userID)
            await reevaluate(userID, stateChanged: false, now: lastCheck)
        }
        events.publish(.serviceReady(name: "focus"))
        var retryDelay: Duration = .seconds(1)
        while !Task.isCancelled {
            let deadline = nextChange(after: lastCheck)
            progress.passed(through: lastCheck, next: deadline)
            // Something to try again: a wake-up on the wall clock too (a manual clock may never move).
            let retry =
                state.withLock({ $0.failed.isEmpty })
                ? nil
                : Task { [wake, retryDelay] in
                    try? await Task.sleep(for: retryDelay)
                    if !Task.isCancelled { wake.signal() }
                }
            await wake.wait(until: deadline, on: clock)
            retry?.cancel()
            if Task.isCancelled { break }
            let now = clock.now
            let (changed, retrying) = state.withLock { state in
                defer {
                    state.changed = []
                    state.failed = [:]
                }
                return (state.changed, state.failed)
            }
            let changedOrRetried = changed.union(retrying.filter(\.value).keys)
            for userID in changedOrRetried.sorted() {
                await reload(userID)
                await reevaluate(userID, stateChanged: true, now: now)
            }
            for userID in retrying.filter({ !$0.value && !changedOrRetried.contains($0.key) }).keys.sorted() {
                await reevaluate(userID, stateChanged: false, now: now)
            }
            if !retrying.isEmpty {
                retryDelay =
                    state.withLock({ $0.failed.isEmpty }) ? .seconds(1) : min(retryDelay * 2, Self.maximumRetryDelay)
            }
            let due = state.withLock { state in
                state.users.filter {
                    !changedOrRetried.contains($0.key) && retrying[$0.key] == nil
                        && ($0.value.modes.nextChange(after: lastCheck, in: $0.value.timeZone).map { $0 <= now }
                            ?? false)
                }
                .keys.sorted()
            }
            for userID in due {
                events.publish(.focusChanged(userID: userID, at: now))
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
            log(error, "Could not read a user's Focus modes", userID: userID)
            retryLater(userID, stateChanged: true)
        }
    }

    private func reevaluate(_ userID: String, stateChanged: Bool, now: Date) async {
        do {
            let changes = try await engine.reevaluateHeld(userID: userID, stateChanged: stateChanged, now: now)
            events.publish(.heldReevaluated(userID: userID, at: now, changes: changes))
        } catch is CancellationError {
            return  // shutting down
        } catch {
            log(error, "Could not decide held notifications again", userID: userID)
            retryLater(userID, stateChanged: stateChanged)
        }
    }

    private func retryLater(_ userID: String, stateChanged: Bool) {
        state.withLock { state in state.failed[userID] = (state.failed[userID] ?? false) || stateChanged }
    }

    /// Logs a failure: a storage fault only at `debug` (the store logged it once; a full disk must
    /// not write a line per user and retry), anything else as an error.
    private func log(_ error: any Error, _ message: Logger.Message, userID: String) {
        logger.log(
            level: error is StorageFaultError || error is CancellationError ? .debug : .error, message,
            metadata: ["user.id": "\(userID)", "error": "\(error)"])
    }
}
