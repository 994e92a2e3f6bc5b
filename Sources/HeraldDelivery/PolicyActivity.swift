import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore
import Synchronization

/// A Scheduled Summary delivered to a user.
public struct SummaryDelivery: Sendable {
    /// The user the summary is for.
    public var userID: String
    /// The summary time it is for.
    public var slot: Date
    /// When it was released (later than `slot` after a restart that missed the time).
    public var deliveredAt: Date
    /// The released notifications, ranked, the featured ones marked.
    public var digest: SummaryDigest
    /// The summary event of each device with released notifications (its seq in the device's
    /// change feed); empty when `wasDeliveredBefore`.
    public var events: [ReleasedSummary]
    /// Whether the store had this summary time delivered already (nothing changed).
    public var wasDeliveredBefore: Bool
}

/// What the policy services did, for whoever watches (streams, tests).
public enum PolicyServiceActivity: Sendable {
    /// Held notifications of a user were decided again (a Focus ended or changed, the summary
    /// changed); `changes` are the rows that got a new decision, in seq order (maybe none).
    case heldReevaluated(userID: String, at: Date, changes: [StoredNotification])
    /// A Scheduled Summary was delivered as one digest.
    case summaryDelivered(SummaryDelivery)
    /// A service finished its start-up pass (catch-up of what happened while Herald was down).
    case serviceReady(name: String)
    /// A user's active Focus changed by itself at `at` — a scheduled window started or ended, a
    /// manual end time passed — not through the API (which tells the devices itself). The API's
    /// `FocusAnnouncer` sends the user's devices `event: focus`.
    case focusChanged(userID: String, at: Date)
}

/// Fans the policy services' events out to subscribers. Publishing never waits.
public final class PolicyActivityFanOut: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<PolicyServiceActivity>.Continuation] = [:]
        var nextID: UInt64 = 0
        /// Set by `finish()`: a later subscription ends at once (it would otherwise wait forever).
        var finished = false
    }

    private let state = HeraldMutex(State())

    /// A fan-out without subscribers.
    public init() {}

    /// The events from now on, until the subscriber stops iterating.
    public func subscribe() -> AsyncStream<PolicyServiceActivity> {
        let (stream, continuation) = AsyncStream.makeStream(of: PolicyServiceActivity.self)
        let id: UInt64? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: PolicyServiceActivity) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Ends every subscription (shutdown).
    public func finish() {
        let subscribers = state.withLock { state in
            defer {
                state.subscribers = [:]
                state.finished = true
            }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
