import Foundation
import HeraldCore
import Synchronization

/// The time the services read and wait on: injected, so tests move it by hand instead of sleeping.
public protocol HeraldClock: Sendable {
    /// The current instant.
    var now: Date { get }
    /// Returns at (or after) `deadline`; throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The wall clock. It waits in steps of at most a minute, so a wall-clock jump (NTP, suspend) is
/// noticed within a minute.
public struct SystemClock: HeraldClock {
    private let read: @Sendable () -> Date

    /// The wall clock; `now` may be replaced (the application's historical `now:` parameter).
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.read = now
    }

    /// The wall-clock time.
    public var now: Date { read() }

    /// Waits (really) until the wall clock reads `deadline`.
    public func sleep(until deadline: Date) async throws {
        while true {
            let remaining = deadline.timeIntervalSince(read())
            if remaining <= 0 { return }
            try await Task.sleep(for: .milliseconds(Int64(min(remaining, 60) * 1000) + 1))
        }
    }
}

/// A clock that only moves when told to (`advance`): every sleeper whose deadline has come is
/// woken, in the order of their deadlines. For tests: no real sleeping.
public final class ManualClock: HeraldClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: HeraldMutex<State>

    /// A clock that reads `now` until advanced.
    public init(now: Date) {
        state = HeraldMutex(State(now: now))
    }

    /// The time the clock was last moved to.
    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are waiting on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until the clock is advanced to `deadline` (returns at once when it is there already).
    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `interval` and wakes the sleepers that are due.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(interval))
    }

    /// Moves the clock to `date` (never backwards) and wakes the sleepers that are due.
    public func advance(to date: Date) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, date)
            let ready = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

/// A wake-up call for a service loop: `signal` wakes the waiter, or the next one if nobody waits.
public final class WakeSignal: Sendable {
    private struct State {
        var isPending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = HeraldMutex(State())

    public init() {}

    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns after a signal (one sent before the call counts), or when the task is cancelled.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumesNow = state.withLock { state -> Bool in
                    if state.isPending || Task.isCancelled {
                        state.isPending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumesNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Waits for a signal or for `deadline` on `clock` (nil: only a signal), whichever comes first.
    public func wait(until deadline: Date?, on clock: any HeraldClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await clock.sleep(until: deadline ?? .distantFuture) }
            _ = await group.next()
            group.cancelAll()
        }
    }
}
