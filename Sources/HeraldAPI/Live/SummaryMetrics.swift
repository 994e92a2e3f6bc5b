import HeraldDelivery
import HeraldMetrics
import ServiceLifecycle

/// Counts the Scheduled Summaries this node releases (`herald_summary_releases_total`) from the
/// policy services' events.
public struct SummaryMetrics: Service, CustomStringConvertible {
    let events: PolicyActivityFanOut
    let metrics: HeraldMetrics

    public var description: String { "SummaryMetrics" }

    public init(events: PolicyActivityFanOut, metrics: HeraldMetrics) {
        self.events = events
        self.metrics = metrics
    }

    public func run() async throws {
        let events = events.subscribe()
        await cancelWhenGracefulShutdown {
            for await event in events {
                if case .summaryDelivered(let delivery) = event, !delivery.wasDeliveredBefore {
                    metrics.releasedSummaries(1)
                }
            }
        }
        // The events end with the streams, at the last service's shutdown — before this one's turn.
        // A service that ends before its turn makes the group cancel the others: wait for it.
        try? await gracefulShutdown()
    }
}
