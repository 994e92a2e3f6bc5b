import Foundation
import HeraldCore
import HeraldStore
import Logging

extension PolicyCoordinator {
    /// The delivery policy of `store` outside a running server (benchmarks, tools): the same engine
    /// and services `HeraldApplication` makes, with the registry read from the store.
    public static func make(store: any HeraldStore, hub: any LiveSessions, clock: any HeraldClock, logger: Logger)
        async throws
        -> PolicyCoordinator
    {
        PolicyCoordinator(
            store: store, registry: RegistryCache(try await store.registrySnapshot()), hub: hub, clock: clock,
            logger: logger)
    }

    /// Delivers each user's Scheduled Summary for its slot now, as the summary service does when the
    /// time comes (exactly once: a slot delivered already changes nothing); returns when every digest
    /// is committed and published to the hub and `events`.
    public func deliverSummaries(_ summaries: [(userID: String, slot: Date)]) async {
        await summaryService.deliverNow(summaries)
    }
}
