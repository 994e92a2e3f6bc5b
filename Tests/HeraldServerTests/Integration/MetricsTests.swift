import Foundation
import HeraldClient
import HeraldServer
import Testing

/// `GET /metrics` of a running Herald: Prometheus's text format, counted from real pushes.
@Suite("Prometheus metrics")
struct MetricsTests {
    /// The value of the sample `name{labels}` (labels as the exposition writes them), nil if absent.
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("pushes by status and reason, commit batches and their time, sessions and held notifications")
    func metricsCountPushes() async throws {
        let herald = try await RunningHerald.start()
        let client = try herald.apnsClient(tls: false)
        let payload = Data(#"{"aps":{"alert":"counted"}}"#.utf8)
        for _ in 0..<3 {
            let accepted = try await client.send(
                APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.demo", payload: payload))
            #expect(accepted.status == 200)
        }
        let refused = try await client.send(
            APNsPush(deviceToken: String(repeating: "0", count: 64), topic: "com.example.demo", payload: payload))
        #expect(refused.reason == "BadDeviceToken")
        try await client.shutdown()

        let admin = try HeraldAPIClient(
            baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.application.adminToken)
        let text = String(decoding: try await admin.send("GET", path: "/metrics"), as: UTF8.self)
        try await admin.shutdown()
        #expect(Self.sample(text, #"herald_pushes_total{status="200",reason="accepted"}"#) == 3, "\(text)")
        #expect(Self.sample(text, #"herald_pushes_total{status="400",reason="BadDeviceToken"}"#) == 1)
        // Three commits at least (one push at a time), each of at least one notification.
        let commits = try #require(Self.sample(text, "herald_commit_batch_size_count"))
        #expect(commits >= 1 && Self.sample(text, "herald_commit_batch_size_sum") == 3)
        #expect(Self.sample(text, "herald_commit_duration_seconds_count") == commits)
        #expect(text.contains(#"herald_commit_duration_seconds_bucket{le="+Inf"}"#))
        #expect(Self.sample(text, "herald_sessions") == 0)
        #expect(Self.sample(text, "herald_live_lags_total") == 0)
        #expect(Self.sample(text, "herald_live_store_rows_total") == 0)
        #expect(Self.sample(text, #"herald_held_notifications{disposition="heldForFocus"}"#) == 0)
        #expect(Self.sample(text, "herald_summary_releases_total") == 0)

        // Only the admin reads them.
        let user = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let error = await #expect(throws: HeraldAPIError.self) { try await user.send("GET", path: "/metrics") }
        #expect(error?.status == 401 || error?.status == 403)
        try await user.shutdown()
        try await herald.stop()
    }
}
