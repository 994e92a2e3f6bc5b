import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// What a Herald node counts, for Prometheus (`GET /metrics`, the text exposition format):
///
/// - `herald_pushes_total{status, reason}`: APNs requests answered, by status and APNs reason
///   (`accepted` for a 200);
/// - `herald_commit_batch_size` and `herald_commit_duration_seconds`: histograms of the group
///   commit's batches (notifications per transaction) and of each commit's time;
/// - `herald_sessions`: live SSE and WebSocket sessions on this node (read at the scrape);
/// - `herald_live_lags_total` and `herald_live_store_rows_total`: how often a live session's queue
///   overflowed (the session lagged), and the rows sessions read from the store rather than from
///   the hub (catching up after connecting with a cursor or after lagging) — read at the scrape;
/// - `herald_held_notifications{disposition}`: notifications a Focus or the Scheduled Summary holds
///   now, all devices (read from the database at the scrape: the same on every node);
/// - `herald_summary_releases_total`: users' Scheduled Summaries this node released;
/// - `herald_registry_read_through_total{outcome}`: pushes to a device token this node did not know,
///   looked for in the shared database (`found`, `missing`) or not (`not_read`: missing a moment ago,
///   or past the budget of reads). Several nodes only.
///
/// Instrumented with swift-metrics' types over swift-prometheus's registry, one registry per
/// instance: no process-wide `MetricsSystem.bootstrap`, so that many applications (the tests) each
/// count their own.
public final class HeraldMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// A 200's counter, kept apart: the push path counts it with one atomic increment, no lock.
    private let accepted: CoreMetrics.Counter
    /// The error answers' counters, by status and reason, made on first use (a handful in all).
    private let pushCounters = Mutex<[PushKey: CoreMetrics.Counter]>([:])
    private let batchSize: CoreMetrics.Recorder
    private let commitDuration: CoreMetrics.Timer
    private let sessions: CoreMetrics.Gauge
    private let liveLags: CoreMetrics.Counter
    private let liveStoreRows: CoreMetrics.Counter
    /// The live counts already added to the two counters above (they only grow).
    private let liveReported = Mutex<(lags: Int, storeRows: Int)>((0, 0))
    private let held: [String: CoreMetrics.Gauge]
    private let summaryReleases: CoreMetrics.Counter
    private let readThrough: [String: CoreMetrics.Counter]

    /// The outcomes `herald_registry_read_through_total` is labelled with.
    public static let readThroughOutcomes = ["found", "missing", "not_read"]

    private struct PushKey: Hashable {
        var status: Int
        var reason: String
    }

    /// The held dispositions the gauge is labelled with.
    public static let heldDispositions = ["heldForFocus", "heldForSummary"]

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Batches of 1 to the writer's 512; commits from a tenth of a millisecond to seconds.
        factory.valueHistogramBuckets["herald_commit_batch_size"] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        factory.durationHistogramBuckets["herald_commit_duration_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
        ]
        self.factory = factory
        accepted = Counter(
            label: "herald_pushes_total", dimensions: [("status", "200"), ("reason", "accepted")], factory: factory)
        batchSize = Recorder(label: "herald_commit_batch_size", aggregate: true, factory: factory)
        commitDuration = Timer(label: "herald_commit_duration_seconds", factory: factory)
        sessions = Gauge(label: "herald_sessions", factory: factory)
        liveLags = Counter(label: "herald_live_lags_total", factory: factory)
        liveStoreRows = Counter(label: "herald_live_store_rows_total", factory: factory)
        held = Dictionary(
            uniqueKeysWithValues: Self.heldDispositions.map {
                ($0, Gauge(label: "herald_held_notifications", dimensions: [("disposition", $0)], factory: factory))
            })
        summaryReleases = Counter(label: "herald_summary_releases_total", factory: factory)
        readThrough = Dictionary(
            uniqueKeysWithValues: Self.readThroughOutcomes.map {
                (
                    $0,
                    Counter(
                        label: "herald_registry_read_through_total", dimensions: [("outcome", $0)], factory: factory)
                )
            })
    }

    /// A push to a device token this node did not know: what reading it through came to.
    public func registryReadThrough(_ outcome: String) {
        readThrough[outcome]?.increment()
    }

    /// An APNs request was answered: `reason` nil for a 200 (or an error answer without one).
    public func answeredPush(status: Int, reason: String?) {
        if status == 200 { return accepted.increment() }
        let key = PushKey(status: status, reason: reason ?? (status == 200 ? "accepted" : "unknown"))
        let counter = pushCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "herald_pushes_total", dimensions: [("status", String(status)), ("reason", key.reason)],
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// The group commit committed `count` notifications in one transaction, in `duration`.
    public func committed(count: Int, in duration: Duration) {
        batchSize.record(count)
        commitDuration.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// This node released users' Scheduled Summaries.
    public func releasedSummaries(_ count: Int) {
        summaryReleases.increment(by: count)
    }

    /// The text exposition (`text/plain; version=0.0.4`), with the gauges read now: this node's
    /// sessions and the held notifications (nil: not read; the gauge keeps its last value), and the
    /// live sessions' counts so far (`live`: lags and rows read from the store, both only growing).
    public func exposition(
        sessions count: Int, held counts: [String: Int]?, live: (lags: Int, storeRows: Int) = (0, 0)
    ) -> [UInt8] {
        sessions.record(count)
        let (newLags, newRows) = liveReported.withLock { reported in
            let added = (max(0, live.lags - reported.lags), max(0, live.storeRows - reported.storeRows))
            reported = (max(reported.lags, live.lags), max(reported.storeRows, live.storeRows))
            return added
        }
        liveLags.increment(by: newLags)
        liveStoreRows.increment(by: newRows)
        for (disposition, gauge) in held {
            if let value = counts?[disposition] { gauge.record(value) }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        registry.emit(into: &buffer)
        return buffer
    }
}
