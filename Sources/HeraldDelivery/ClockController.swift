import Foundation
import HeraldCore
import Synchronization

/// Moves the manual clock of `herald serve --clock manual` (the admin clock routes) so that every
/// time-driven service follows it as it would follow the wall clock: the clock stops at each time
/// a service acts at (a Focus schedule starting or ending, a summary time), in order, and each
/// stop waits until the services have acted at it. A move returns once they have acted up to its
/// end, so what a client reads next (decisions, lists, streams) shows it.
///
/// Moves are serial (an advance starts from where the previous one ended) and only forward.
public final class ClockController: ClockControl {
    /// The clock moved.
    public let clock: ManualClock
    private let services: [any ClockFollowing]
    private let tail = HeraldMutex<Task<Void, Never>?>(nil)

    /// The furthest one move may go: a year and a day (more: move again). Each stop costs a pass of
    /// every service, so a move's cost grows with the schedule times it crosses.
    public static let moveLimit: TimeInterval = 366 * 86_400

    init(clock: ManualClock, services: [any ClockFollowing]) {
        self.clock = clock
        self.services = services
    }

    public func move(_ movement: ClockMovement) async throws -> Date {
        // Serial: each move waits for the one before it, even when its caller has gone.
        let move = tail.withLock { tail -> Task<Result<Date, ClockMoveError>, Never> in
            let previous = tail
            let move = Task {
                await previous?.value
                return await self.perform(movement)
            }
            tail = Task { _ = await move.value }
            return move
        }
        return try await move.value.get()
    }

    private func perform(_ movement: ClockMovement) async -> Result<Date, ClockMoveError> {
        let start = clock.now
        // In whole milliseconds (the precision of every API timestamp): a time plus seconds in
        // floating point can land a hair before the millisecond it means.
        let startMilliseconds = Self.milliseconds(start)
        let target: Date
        switch movement {
        case .to(let date):
            target = Self.date(milliseconds: Self.milliseconds(date))
        case .by(let seconds):
            guard seconds >= 0 else { return .failure(.backwards(now: start)) }
            target = Self.date(milliseconds: startMilliseconds + (seconds * 1000).rounded())
        }
        guard Self.milliseconds(target) >= startMilliseconds else { return .failure(.backwards(now: start)) }
        guard target.timeIntervalSince(start) <= Self.moveLimit else {
            return .failure(.tooFar(now: start, limit: Self.moveLimit))
        }
        // The services' next times, from a pass at the current time (which also finishes whatever
        // they were doing).
        var deadlines = await followed(through: start)
        while true {
            let now = clock.now
            let stop = deadlines.filter { $0 > now && $0 < target }.min() ?? target
            clock.advance(to: stop)
            deadlines = await followed(through: stop)
            if stop >= target { return .success(clock.now) }
        }
    }

    /// Waits until every service has made a pass at `date` or later; their next times.
    private func followed(through date: Date) async -> [Date] {
        await withTaskGroup(of: Date?.self) { group in
            for service in services {
                group.addTask { await service.followed(through: date) }
            }
            var deadlines: [Date] = []
            for await deadline in group {
                if let deadline { deadlines.append(deadline) }
            }
            return deadlines
        }
    }

    /// `date` in milliseconds since 1970, rounded to the nearest.
    static func milliseconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded()
    }

    static func date(milliseconds: Double) -> Date {
        Date(timeIntervalSince1970: milliseconds / 1000)
    }
}

/// A service that acts at times of the clock and can say when it has caught up with it.
protocol ClockFollowing: Sendable {
    /// Makes the service look at the clock now, and returns once it has made a pass at `date` or
    /// later, with the next time it will act at (nil: none, or the service has stopped).
    func followed(through date: Date) async -> Date?
}

/// How far a service loop has followed the clock: the loop reports each pass (the time it looked
/// at, its next deadline); waiters for a time are answered by the first pass at that time or later.
final class ServiceProgress: Sendable {
    private struct Waiter {
        let date: Date
        let continuation: CheckedContinuation<Date?, Never>
    }

    private struct State {
        var waiters: [Waiter] = []
        var isFinished = false
        /// The loop is not running for now (another node leads: `ScheduledServices`).
        var isPaused = false
    }

    private let state = HeraldMutex(State())

    /// The loop made a pass at `checked` (everything due by then is done); it next acts at `next`.
    func passed(through checked: Date, next: Date?) {
        let ready = state.withLock { state -> [Waiter] in
            let ready = state.waiters.filter { $0.date <= checked }
            state.waiters.removeAll { $0.date <= checked }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: next) }
    }

    /// The loop ended: every waiter, now and later, gets nil.
    func finish() {
        let waiters = state.withLock { state -> [Waiter] in
            state.isFinished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    /// The loop stops for now (this node no longer leads, or does not yet): waiters, now and until
    /// `resume`, get nil — the leader acts at those times, not this node.
    func pause() {
        let waiters = state.withLock { state -> [Waiter] in
            state.isPaused = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    /// The loop runs again: waiters wait for its passes.
    func resume() {
        state.withLock { $0.isPaused = false }
    }

    /// Waits for a pass at `date` or later; `wake` runs once the waiter is registered (it makes
    /// the loop pass).
    func wait(through date: Date, wake: () -> Void) async -> Date? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Date?, Never>) in
            let finished = state.withLock { state -> Bool in
                if state.isFinished || state.isPaused { return true }
                state.waiters.append(Waiter(date: date, continuation: continuation))
                return false
            }
            if finished {
                continuation.resume(returning: nil)
            } else {
                wake()
            }
        }
    }
}
