import Foundation
import HeraldCore
import HeraldStore
import Synchronization

/// A device token this node does not know yet, read from the shared database before a push to it is
/// refused: with several nodes, a token registered through another node reaches this node's
/// registry when that node's change signal has been heard and the registry read again (~20–80 ms),
/// and an app that registers a device and pushes to it at once got `BadDeviceToken` meanwhile.
///
/// A flood of pushes to tokens that do not exist must not become a flood of database reads: a token
/// read and not found is remembered as missing for `missingFor` (the next pushes to it are refused
/// without a read), and at most `readsPerSecond` reads start in a second (a token bucket); past
/// that a push to an unknown token is refused at once, as it was before. On one node (SQLite) the
/// registry in memory is the database's, so there is none of this.
final class RegistryReadThrough: Sendable {
    private struct State {
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
        /// Tokens read and not found, with when that was.
        var missing: [String: ContinuousClock.Instant] = [:]
    }

    private let store: any HeraldStore
    private let registry: RegistryCache
    private let readsPerSecond: Double
    private let missingFor: Duration
    /// The most tokens remembered as missing (then the oldest half is forgotten).
    private let missingLimit: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<State>

    init(
        store: any HeraldStore, registry: RegistryCache, readsPerSecond: Double = 200,
        missingFor: Duration = .seconds(2), missingLimit: Int = 10_000,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.store = store
        self.registry = registry
        self.readsPerSecond = readsPerSecond
        self.missingFor = missingFor
        self.missingLimit = missingLimit
        self.now = now
        self.state = Mutex(State(tokens: readsPerSecond, refilledAt: now()))
    }

    /// What happened to one unknown token.
    enum Outcome: String, Sendable {
        /// Read and found: now in the registry.
        case found
        /// Read and not there.
        case missing
        /// Not read: missing at a read a moment ago, or over the budget of reads.
        case notRead = "not_read"
    }

    /// Reads `token` (canonical) from the database when the budget allows, and adds it to the
    /// registry when it is there.
    func lookUp(_ token: String) async -> Outcome {
        let now = self.now()
        let mayRead = state.withLock { state -> Bool in
            if let at = state.missing[token], now - at < missingFor { return false }
            let elapsed = (now - state.refilledAt).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            state.tokens = min(readsPerSecond, state.tokens + seconds * readsPerSecond)
            state.refilledAt = now
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            return true
        }
        guard mayRead else { return .notRead }
        let read: DeviceTokenRecord?
        do {
            read = try await store.deviceToken(token)
        } catch {
            // The database did not answer: refused as before, and not remembered as missing.
            return .notRead
        }
        guard let record = read else {
            state.withLock { state in
                if state.missing.count >= missingLimit {
                    // Forget the older half: bounded memory whatever the flood.
                    let oldest = state.missing.sorted { $0.value < $1.value }.prefix(missingLimit / 2)
                    for (key, _) in oldest { state.missing[key] = nil }
                }
                state.missing[token] = self.now()
            }
            return .missing
        }
        registry.update { $0.upsert(record) }
        state.withLock { $0.missing[token] = nil }
        return .found
    }
}
