import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Logging
import Synchronization
import Testing

@testable import HeraldAPI

@Suite("LiveFeed")
struct LiveFeedTests {
    /// Reads the feed until it has `count` changes (heartbeats skipped).
    static func collect(_ iterator: inout LiveFeed.Iterator, count: Int) async throws -> [LiveChange] {
        var changes: [LiveChange] = []
        while changes.count < count, let output = try await iterator.next() {
            if case .changes(let batch) = output { changes += batch }
        }
        return changes
    }

    func makeFeed(
        _ harness: TestHarness, deviceID: String, after cursor: Int64 = 0, pageSize: Int = 200,
        pageBytes: Int = 64 << 10
    ) -> LiveFeed {
        LiveFeed(
            subscription: harness.hub.subscribe(deviceID: deviceID), after: cursor, store: harness.store,
            now: harness.clock.now, logger: Logger(label: "test"), pageSize: pageSize, pageBytes: pageBytes
        )
    }

    @Test(
        "a live batch is sent in outputs of at most the byte bound, each change once and in order",
        arguments: StoreKind.allCases)
    func liveOutputsBoundedInBytes(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        let body = String(repeating: "b", count: 2_000)
        let probe = try await harness.push(device.deviceID, body: body)[0]
        let rowBytes = LiveSubscription.estimatedBytes(probe)
        let feed = makeFeed(harness, deviceID: device.deviceID, pageBytes: 3 * rowBytes)
        var iterator = feed.makeAsyncIterator()
        #expect(try await Self.collect(&iterator, count: 1).map(\.cursor) == [1])
        // One group commit of 20 rows, published as one batch.
        let rows = (0..<20).map { index in
            StoredNotification(
                seq: 0, id: "batch-\(index)", deviceID: device.deviceID, bundleID: TestHarness.bundleID,
                topic: TestHarness.bundleID, pushType: .alert, priority: 10, collapseID: nil, expiration: nil,
                payload: probe.payload, receivedAt: harness.clock.now())
        }
        harness.hub.publish(try await harness.store.insert(rows))
        var seen: [Int64] = []
        while seen.count < 20, let output = try await iterator.next() {
            guard case .changes(let batch) = output else { continue }
            #expect(batch.count <= 3)
            seen += batch.map(\.cursor)
        }
        #expect(seen == Array(2...21))
    }

    @Test(
        "a catch-up page is cut at its byte bound, and the rest is read next, without gaps",
        arguments: StoreKind.allCases)
    func catchUpPagesBoundedInBytes(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        let body = String(repeating: "b", count: 2_000)
        for _ in 0..<30 { try await harness.push(device.deviceID, body: body) }
        let rowBytes = LiveSubscription.estimatedBytes(try await harness.push(device.deviceID, body: body)[0])
        // Room for three rows a page (rows are read 200 at a time, then cut).
        let feed = makeFeed(harness, deviceID: device.deviceID, pageBytes: 3 * rowBytes + rowBytes / 2)
        var iterator = feed.makeAsyncIterator()
        var seen: [Int64] = []
        while seen.count < 31, let output = try await iterator.next() {
            guard case .changes(let batch) = output else { continue }
            #expect(batch.count <= 3)
            seen += batch.map(\.cursor)
        }
        #expect(seen == Array(1...31))
        // One row bigger than the bound still goes, alone.
        let tiny = makeFeed(harness, deviceID: device.deviceID, after: 28, pageBytes: 1)
        var tinyIterator = tiny.makeAsyncIterator()
        #expect(try await Self.collect(&tinyIterator, count: 3).map(\.cursor) == [29, 30, 31])
    }

    @Test("the backlog comes first, then live changes, each once and in order", arguments: StoreKind.allCases)
    func backlogThenLive(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        for _ in 0..<5 { try await harness.push(device.deviceID) }
        let feed = makeFeed(harness, deviceID: device.deviceID, pageSize: 2)
        // Published after subscribing but before the backlog read: seen in both, sent once.
        for _ in 0..<3 { try await harness.push(device.deviceID) }
        var iterator = feed.makeAsyncIterator()
        let first = try await Self.collect(&iterator, count: 8)
        try await harness.push(device.deviceID)
        let second = try await Self.collect(&iterator, count: 1)
        let cursors = (first + second).map(\.cursor)
        #expect(cursors == Array(1...9))
        #expect((first + second).map(\.notification.seq) == Array(1...9))
    }

    @Test("a feed resumes after its cursor", arguments: StoreKind.allCases)
    func resumesAfterCursor(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        for _ in 0..<5 { try await harness.push(device.deviceID) }
        var iterator = makeFeed(harness, deviceID: device.deviceID, after: 3).makeAsyncIterator()
        let changes = try await Self.collect(&iterator, count: 2)
        #expect(changes.map(\.cursor) == [4, 5])
    }

    @Test("a session that lagged catches up from the store without gaps or duplicates", arguments: StoreKind.allCases)
    func lagCatchesUpFromStore(_ store: StoreKind) async throws {
        let harness = try TestHarness(store, queueCapacity: 4)
        let (_, device) = try await harness.makeDevice()
        let feed = makeFeed(harness, deviceID: device.deviceID, pageSize: 3)
        var iterator = feed.makeAsyncIterator()
        try await harness.push(device.deviceID)
        #expect(try await Self.collect(&iterator, count: 1).map(\.cursor) == [1])
        // The first row came from the store or the hub (whichever the session read first).
        let before = harness.hub.counters.snapshot
        #expect(before.lags == 0 && before.storeRows <= 1)
        // 50 changes while the session doesn't read: its queue (4) overflows.
        for _ in 0..<50 { try await harness.push(device.deviceID) }
        #expect(feed.subscription.isLagging)
        let rest = try await Self.collect(&iterator, count: 50)
        #expect(rest.map(\.cursor) == Array(2...51))
        // Counted once, however many pushes came while it lagged; the rows from the lag's start on
        // were read from the store (those published before the overflow came from the hub; a row
        // already sent may be read again and dropped: the catch-up starts at the oldest one the
        // session cannot be sure it sent).
        let counts = harness.hub.counters.snapshot
        #expect(counts.lags == 1)
        #expect((46...51).contains(counts.storeRows - before.storeRows), "\(counts)")
        try await harness.push(device.deviceID)
        #expect(try await Self.collect(&iterator, count: 1).map(\.cursor) == [52])
    }

    @Test(
        "a change published late, below the cursor, is still sent, labelled with the cursor",
        arguments: StoreKind.allCases)
    func latePublishedChangeIsNotLost(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        let first = try await harness.push(device.deviceID)[0]
        let feed = makeFeed(harness, deviceID: device.deviceID)
        var iterator = feed.makeAsyncIterator()
        #expect(try await Self.collect(&iterator, count: 1).map(\.cursor) == [1])
        // A read (seq 2) commits before a push (seq 3), but the push is published first.
        let read = try #require(
            try await harness.store.markRead(deviceID: device.deviceID, id: first.id, at: harness.clock.now()))
        let pushed = try await harness.store.insert([
            StoredNotification(
                seq: 0, id: "late", deviceID: device.deviceID, bundleID: TestHarness.bundleID,
                topic: TestHarness.bundleID,
                pushType: .alert, priority: 10, collapseID: nil, expiration: nil, payload: "{}",
                receivedAt: harness.clock.now()
            )
        ])
        harness.hub.publish(pushed)
        harness.hub.publish([read])
        let changes = try await Self.collect(&iterator, count: 2)
        #expect(changes.map(\.notification.seq) == [3, 2])
        #expect(changes.map(\.cursor) == [3, 3])
        #expect(changes[1].notification.readAt != nil)
    }

    @Test("rows no session had received are marked delivered once sent")
    func marksDelivered() async throws {
        let harness = try TestHarness()
        let (_, device) = try await harness.makeDevice()
        let first = try await harness.push(device.deviceID)[0]
        try await harness.push(device.deviceID, delivered: true)
        var iterator = makeFeed(harness, deviceID: device.deviceID).makeAsyncIterator()
        _ = try await Self.collect(&iterator, count: 2)
        let deliveredAt = { try await harness.store.notification(deviceID: device.deviceID, id: first.id)?.deliveredAt }
        #expect(try await deliveredAt() == nil)
        // Asking for the next output means the previous one was written.
        let next = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        var marked: Date?
        for _ in 0..<200 where marked == nil {
            try await Task.sleep(for: .milliseconds(10))
            marked = try await deliveredAt()
        }
        #expect(marked == harness.clock.now())
        harness.hub.close()
        _ = try await next.value
    }

    @Test("live rows: expiration 0 reaches connected sessions, an expired one doesn't", arguments: StoreKind.allCases)
    func liveExpiration(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        var iterator = makeFeed(harness, deviceID: device.deviceID).makeAsyncIterator()
        let past = Int64(harness.clock.now().timeIntervalSince1970) - 10
        try await harness.push(device.deviceID, id: "expired", expiration: past)
        try await harness.push(device.deviceID, id: "now-only", expiration: 0)
        let changes = try await Self.collect(&iterator, count: 1)
        #expect(changes.map(\.notification.id) == ["now-only"])
    }

    @Test(
        "step reads the backlog, then is idle until the hub has more, then ends with the subscription",
        arguments: StoreKind.allCases)
    func stepWithoutWaiting(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, device) = try await harness.makeDevice()
        try await harness.push(device.deviceID, id: "n1")
        let feed = makeFeed(harness, deviceID: device.deviceID)
        var iterator = feed.makeAsyncIterator()
        guard case .output(.changes(let backlog)) = try await iterator.step() else {
            Issue.record("the backlog first")
            return
        }
        #expect(backlog.map(\.notification.id) == ["n1"])
        #expect(try await iterator.step() == .idle)
        #expect(try await iterator.step() == .idle, "still nothing: no waiting, no output")

        let woken = HeraldMutex(false)
        feed.subscription.whenReady { woken.withLock { $0 = true } }
        try await harness.push(device.deviceID, id: "n2")
        #expect(woken.withLock { $0 })
        guard case .output(.changes(let live)) = try await iterator.step() else {
            Issue.record("the live change")
            return
        }
        #expect(live.map(\.notification.id) == ["n2"])
        #expect(live.map(\.cursor) == [2])
        // Delivered once the next step is taken (the transport wrote the previous output).
        #expect(try await iterator.step() == .idle)
        #expect(try await harness.store.notification(deviceID: device.deviceID, id: "n2")?.deliveredAt != nil)

        feed.subscription.finish()
        #expect(try await iterator.step() == .ended)
    }
}

@Suite("Feed cursor")
struct FeedCursorTests {
    @Test("changes older than the remembered window are never sent twice, late ones inside it are sent once")
    func windowedDeduplication() {
        var cursor = SessionPosition(floor: 0, memory: 100)
        for seq in Int64(1)...10_000 { #expect(cursor.accept(seq) != nil) }
        // Live changes that queued up while a catch-up had already sent them.
        #expect(cursor.accept(5) == nil)
        #expect(cursor.accept(9_950) == nil)
        // A late change that committed before another but was published after it.
        #expect(cursor.accept(10_003) == 10_003)
        #expect(cursor.accept(10_002) == 10_003)
        #expect(cursor.accept(10_002) == nil)
    }
}

@Suite("Notification JSON")
struct NotificationJSONTests {
    @Test("the streams' fast JSON equals the API's encoded JSON, field for field")
    func fastJSONMatchesEncoder() throws {
        let row = StoredNotification(
            seq: 42, id: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", deviceID: "device-1", bundleID: "com.example.demo",
            topic: "com.example.demo", pushType: .alert, priority: 10, collapseID: "c\"1", expiration: 1_900_000_000,
            payload:
                "{\"aps\":{\"alert\":{\"title\":\"Hi\\n\",\"body\":\"B\"},\"badge\":2,\"sound\":\"default\",\"thread-id\":\"t\",\"relevance-score\":0.25,\"interruption-level\":\"time-sensitive\"},\n \"k\": [1, 2.5]}",
            receivedAt: Date(timeIntervalSince1970: 1_800_000_000.123),
            readAt: Date(timeIntervalSince1970: 1_800_000_001)
        )
        var decided = row
        decided.decision = DecisionRecord(
            decision: Decision(
                disposition: .alerted, banner: .banner, effectiveLevel: .active,
                reasons: [ReasonCode(rawValue: "default-alert")]),
            context: .init(audioRoute: .none), display: NotificationDisplay(title: "Shown", subtitle: nil, body: "here")
        )
        for sample in [row, decided] {
            let json = NotificationJSON(sample)
            let fast = try JSONParser.parse(json.jsonBytes)
            let encoded = try JSONParser.parse(Array(JSONEncoder().encode(json)))
            #expect(fast == encoded)
            #expect(!json.jsonBytes.contains(0x0A))
            // A row on its way from a push carries its payload parsed: same JSON, same row.
            var carrying = sample
            carrying.arrival = ArrivalFacts(try NotificationPayload(json: Array(sample.payload.utf8)))
            #expect(carrying == sample)
            #expect(try JSONParser.parse(NotificationJSON(carrying).jsonBytes) == fast)
            #expect(NotificationJSON(carrying) == json)
        }
    }
}
