import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Synchronization
import Testing

@Suite("Scheduled Summary on the live stream and the JSON API (in-process server, test clock)")
struct SummaryStreamTests {
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Pushes `body` with a relevance score; returns the stored row.
    static func push(_ herald: PolicyHerald, _ body: String, relevance: Double, client: APNsClient) async throws
        -> StoredNotification
    {
        try await herald.push(
            #"{"alert":{"title":"Demo","body":"\#(body)"},"relevance-score":\#(relevance)}"#, client: client)
    }

    /// The first event of `name` on the device's SSE stream from `cursor`; `connected` is told when
    /// the stream is connected (so a live event published afterwards reaches it).
    static func firstEvent(
        _ name: String, api: HeraldAPIClient, deviceID: String, cursor: String,
        connected: @escaping @Sendable () -> Void = {}
    ) async throws -> ServerSentEvent? {
        let stream = api.events(deviceID: deviceID, cursor: cursor) { status in
            if case .connected = status { connected() }
        }
        for try await event in stream where event.event == name || event.event == "notification" {
            return event
        }
        return nil
    }

    @Test(
        "the digest reaches a live stream as one summary event, a resumed stream gets it once, the list and decision show the release"
    )
    func summaryOnTheStream() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let deviceID = herald.demo.deviceID
        let slot = ScheduledSummaryTests.slot(after: herald.clock.now)
        try await herald.store.setSummarySchedule(
            try SummarySchedule(times: [slot.time], apps: [herald.demo.topic]), userID: userID)
        try await herald.userStateChanged(userID)
        let client = try herald.apnsClient()
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)

        // Given four held pushes: two with the same relevance (the more recent ranks first)
        var held: [StoredNotification] = []
        for (body, relevance) in [("low", 0.1), ("older tie", 0.5), ("high", 0.9)] {
            held.append(try await Self.push(herald, body, relevance: relevance, client: client))
        }
        herald.clock.advance(by: 1)
        held.append(try await Self.push(herald, "newer tie", relevance: 0.5, client: client))
        let cursor = try await herald.store.latestCursor()

        // And a stream connected from the latest cursor
        let (connected, signal) = AsyncStream.makeStream(of: Void.self)
        let live = Task {
            try await Self.firstEvent("summary", api: api, deviceID: deviceID, cursor: String(cursor)) {
                signal.yield()
            }
        }
        for await _ in connected { break }

        // When the summary time comes
        herald.clock.advance(to: slot.date.addingTimeInterval(1))
        _ = try await herald.nextEvent { if case .summaryDelivered = $0 { true } else { false } }

        // Then the live stream gets one summary event, after the cursor, in digest order, the top one featured
        let event = try #require(try await live.value)
        #expect(event.event == "summary")
        let summaryCursor = try #require(event.id.flatMap { Int64($0) })
        #expect(summaryCursor > cursor)
        let data = try JSONParser.parse(Array(event.data.utf8))
        #expect(json(data, "cursor")?.stringValue == String(summaryCursor))
        #expect(json(data, "slot")?.stringValue == Self.timestamp(slot.date))
        let apps = jsonItems(json(data, "apps"))
        #expect(apps.count == 1 && json(apps.first, "bundle_id")?.stringValue == herald.demo.topic)
        let items = jsonItems(json(apps.first, "notifications"))
        #expect(items.compactMap { json($0, "id")?.stringValue } == [held[2].id, held[3].id, held[1].id, held[0].id])
        #expect(items.map { json($0, "featured") == .bool(true) } == [true, false, false, false])
        #expect(
            items.compactMap { json($0, "notification", "alert", "body")?.stringValue } == [
                "high", "newer tie", "older tie", "low",
            ])
        #expect(items.allSatisfy { json($0, "notification", "disposition")?.stringValue == "listedSilently" })

        // And a stream resumed from before the summary gets it, once: the next event after it is new
        let resumed = try #require(
            try await Self.firstEvent("summary", api: api, deviceID: deviceID, cursor: String(cursor)))
        #expect(resumed.event == "summary" && resumed.id == event.id)
        #expect(try JSONParser.parse(Array(resumed.data.utf8)) == data)
        let later = try await Self.push(herald, "after the summary", relevance: 0.2, client: client)
        let next = try #require(
            try await Self.firstEvent("summary", api: api, deviceID: deviceID, cursor: String(summaryCursor)))
        #expect(next.event == "notification")
        #expect(json(try JSONParser.parse(Array(next.data.utf8)), "id")?.stringValue == later.id)

        // And the list and the decision endpoint show the release
        let page = try JSONParser.parse(Array(try await api.listNotifications(deviceID: deviceID, limit: 100)))
        let listed = jsonItems(json(page, "notifications"))
        let top = try #require(listed.first { json($0, "id")?.stringValue == held[2].id })
        #expect(json(top, "disposition")?.stringValue == "listedSilently")
        #expect(json(top, "decision", "context", "summary", "featured") == .bool(true))
        #expect(
            json(top, "decision", "context", "summary", "slot_ms")?.lenientNumber
                == (slot.date.timeIntervalSince1970 * 1000))
        #expect(
            listed.first { json($0, "id")?.stringValue == later.id }.flatMap { json($0, "disposition")?.stringValue }
                == "heldForSummary")
        let decision = try JSONParser.parse(Array(try await api.decision(notificationID: held[0].id)))
        #expect(json(decision, "disposition")?.stringValue == "listedSilently")
        #expect(json(decision, "released_at")?.stringValue == Self.timestamp(slot.date.addingTimeInterval(1)))
        #expect(jsonItems(json(decision, "reasons")).contains { json($0, "code")?.stringValue == "summary-delivered" })

        // And the next summary's preview holds only what came after
        let preview = try await herald.application.policy.nextSummaryPreview(userID: userID)
        #expect(preview.digest.apps.flatMap(\.notifications).map(\.id) == [later.id])
        try await client.shutdown()
        try await api.shutdown()
        try await herald.stop()
    }
}
