import Synchronization

/// The registry snapshot shared by the APNs endpoint (reads on every push) and the admin API
/// (writes after each committed change).
public final class RegistryCache: Sendable {
    private struct State {
        var snapshot: RegistrySnapshot
        /// Counts the changes applied: a reload that read the store before one applies again.
        var generation: UInt64 = 0
    }

    private let state: HeraldMutex<State>

    public init(_ snapshot: RegistrySnapshot = RegistrySnapshot()) {
        state = HeraldMutex(State(snapshot: snapshot))
    }

    /// The current snapshot (a copy-on-write value: cheap to take).
    public var snapshot: RegistrySnapshot {
        state.withLock { $0.snapshot }
    }

    /// Applies a change made durable in the store.
    public func update(_ change: (inout RegistrySnapshot) -> Void) {
        state.withLock { state in
            change(&state.snapshot)
            state.generation &+= 1
        }
    }

    /// Replaces the snapshot with one `read` from the store (another node changed the registry).
    /// A change applied here while it read — committed before it was applied, but perhaps after
    /// the read — makes it read again, so a reload never undoes a newer change.
    public func reload(_ read: () async throws -> RegistrySnapshot) async throws {
        while true {
            let generation = state.withLock { $0.generation }
            let fresh = try await read()
            let replaced = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.snapshot = fresh
                state.generation &+= 1
                return true
            }
            if replaced { return }
        }
    }
}
