import Synchronization

/// The registry snapshot shared by the APNs endpoint (reads on every push) and the admin API
/// (writes after each committed change).
public final class RegistryCache: Sendable {
    private let state: HeraldMutex<RegistrySnapshot>

    public init(_ snapshot: RegistrySnapshot = RegistrySnapshot()) {
        state = HeraldMutex(snapshot)
    }

    /// The current snapshot (a copy-on-write value: cheap to take).
    public var snapshot: RegistrySnapshot {
        state.withLock { $0 }
    }

    /// Applies a change made durable in the store.
    public func update(_ change: (inout RegistrySnapshot) -> Void) {
        state.withLock { change(&$0) }
    }
}
