import Foundation
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldStore
import Synchronization
import Testing

/// A change row of a device, for hub tests that don't need a store.
func change(_ seq: Int64, device: String = "d1") -> StoredNotification {
    StoredNotification(
        seq: seq, id: "n\(seq)", deviceID: device, bundleID: "com.example.app", topic: "com.example.app",
        pushType: .alert, priority: 10, collapseID: nil, expiration: nil, payload: "{}",
        receivedAt: Date(timeIntervalSince1970: 0)
    )
}

@Suite("LiveHub")
struct LiveHubTests {
    @Test("publish reaches the sessions of the change's device only")
    func publishRoutesByDevice() async {
        let hub = LiveHub()
        let first = hub.subscribe(deviceID: "d1")
        let other = hub.subscribe(deviceID: "d2")
        hub.publish([change(1, device: "d1"), change(2, device: "d2"), change(3, device: "d1")])

        #expect(await first.next() == .changes([change(1), change(3)]))
        #expect(await other.next() == .changes([change(2, device: "d2")]))

        // A batch of one device (handed over as it is) reaches each of its sessions, and a batch
        // whose other devices have no session here reaches the one that has.
        let second = hub.subscribe(deviceID: "d1")
        hub.publish([change(4), change(5)])
        hub.publish([change(6, device: "d3"), change(7), change(8, device: "d4")])
        #expect(await first.next() == .changes([change(4), change(5), change(7)]))
        #expect(await second.next() == .changes([change(4), change(5), change(7)]))
        #expect(other.poll() == .empty)
    }

    @Test("hasSession follows subscribing and finishing")
    func hasSessionFollowsSubscriptions() {
        let hub = LiveHub()
        #expect(!hub.hasSession(deviceID: "d1"))
        let subscription = hub.subscribe(deviceID: "d1")
        #expect(hub.hasSession(deviceID: "d1"))
        #expect(hub.sessionCount == 1)
        subscription.finish()
        #expect(!hub.hasSession(deviceID: "d1"))
        #expect(hub.sessionCount == 0)
    }

    @Test("a session that doesn't read lags with a bounded queue instead of growing")
    func slowSessionQueueStaysBounded() async {
        let hub = LiveHub(queueCapacity: 100)
        let slow = hub.subscribe(deviceID: "d1")
        for seq in 1...5_000 {
            hub.publish([change(Int64(seq))])
            #expect(slow.queuedCount <= 100)
        }
        #expect(slow.isLagging)
        #expect(slow.queuedCount == 0)
        // It learns where it fell behind, then gets what came after it caught up.
        #expect(await slow.next() == .lagged(oldestDropped: 1))
        hub.publish([change(5_001)])
        #expect(await slow.next() == .changes([change(5_001)]))
    }

    @Test("a session's queue is bounded in bytes too: a second batch past the bound makes it lag")
    func queueBoundedInBytes() async {
        let big = String(repeating: "x", count: 3_000)
        func bigChange(_ seq: Int64) -> StoredNotification {
            var row = change(seq)
            row.payload = big
            return row
        }
        let perRow = LiveSubscription.estimatedBytes(bigChange(1))
        #expect(perRow == MemoryLayout<StoredNotification>.stride + 3_000)
        let hub = LiveHub(queueCapacity: 1_000, queueByteCapacity: 10 * perRow)
        let slow = hub.subscribe(deviceID: "d1")
        // An empty queue takes a batch over the bound (a reader that keeps up must not lag on one
        // big group commit) ...
        hub.publish((1...20).map { bigChange(Int64($0)) })
        #expect(!slow.isLagging)
        #expect(slow.queuedCount == 20)
        #expect(slow.queuedBytes == 20 * perRow)
        // ... but nothing more until it reads: the next batch makes it lag, well under 1,000 changes.
        hub.publish([bigChange(21)])
        #expect(slow.isLagging)
        #expect(slow.queuedCount == 0)
        #expect(slow.queuedBytes == 0)
        #expect(await slow.next() == .lagged(oldestDropped: 1))

        // A session that reads takes batches that together pass the bound, one at a time.
        let reader = hub.subscribe(deviceID: "d1")
        for seq in 22...60 {
            hub.publish([bigChange(Int64(seq))])
            #expect(await reader.next() == .changes([bigChange(Int64(seq))]))
        }
        #expect(!reader.isLagging)
        // Small rows fill it up to the bound, then it lags.
        let small = hub.subscribe(deviceID: "d1")
        let smallRow = LiveSubscription.estimatedBytes(change(61))
        for seq in 61...(61 + Int64(10 * perRow / smallRow) + 1) {
            hub.publish([change(seq)])
            #expect(small.queuedBytes <= 10 * perRow)
        }
        #expect(small.isLagging)
    }

    @Test("a slow session doesn't hold back a fast one on the same device")
    func slowSessionDoesNotBlockOthers() async {
        let hub = LiveHub(queueCapacity: 50)
        let slow = hub.subscribe(deviceID: "d1")
        let fast = hub.subscribe(deviceID: "d1")
        var received: [Int64] = []
        // The fast session reads after every 40 changes; the slow one never reads.
        for round in 0..<250 {
            let base = Int64(round * 40)
            for seq in (base + 1)...(base + 40) {
                hub.publish([change(seq)])
            }
            if case .changes(let rows) = await fast.next() { received += rows.map(\.seq) }
        }
        #expect(received == Array(1...10_000))
        #expect(!fast.isLagging)
        #expect(slow.isLagging)
        #expect(slow.queuedCount <= 50)
    }

    @Test("a heartbeat request wakes an idle session")
    func heartbeatWakesIdleSession() async {
        let hub = LiveHub()
        let subscription = hub.subscribe(deviceID: "d1")
        let waiting = Task { await subscription.next() }
        try? await Task.sleep(for: .milliseconds(20))
        subscription.requestHeartbeat()
        #expect(await waiting.value == .heartbeat)
    }

    @Test("closing the hub ends every session and refuses new ones")
    func closeEndsSessions() async {
        let hub = LiveHub()
        let subscription = hub.subscribe(deviceID: "d1")
        let waiting = Task { await subscription.next() }
        try? await Task.sleep(for: .milliseconds(20))
        hub.close()
        #expect(await waiting.value == nil)
        let late = hub.subscribe(deviceID: "d1")
        #expect(await late.next() == nil)
        #expect(!hub.hasSession(deviceID: "d1"))
    }

    @Test("cancelling a waiting session ends it")
    func cancellationEndsWaitingSession() async {
        let hub = LiveHub()
        let subscription = hub.subscribe(deviceID: "d1")
        let waiting = Task { await subscription.next() }
        try? await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(!hub.hasSession(deviceID: "d1"))
    }

    @Test("poll takes what is ready without waiting; whenReady calls once, when there is more or the end")
    func pollAndWhenReady() async {
        let hub = LiveHub()
        let subscription = hub.subscribe(deviceID: "d1")
        #expect(subscription.poll() == .empty)
        let calls = HeraldMutex(0)
        subscription.whenReady { calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == 0, "nothing is ready yet")
        hub.publish([change(1), change(2, device: "d2")])
        hub.publish([change(3)])
        #expect(calls.withLock { $0 } == 1, "called once, at the first publish")
        #expect(subscription.poll() == .event(.changes([change(1), change(3)])))
        #expect(subscription.poll() == .empty)

        // Ready already: called at once.
        subscription.requestHeartbeat()
        subscription.whenReady { calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == 2)
        #expect(subscription.poll() == .event(.heartbeat))

        // The end wakes it too, and polls say so.
        subscription.whenReady { calls.withLock { $0 += 1 } }
        subscription.finish()
        #expect(calls.withLock { $0 } == 3)
        #expect(subscription.poll() == .finished)
        #expect(!hub.hasSession(deviceID: "d1"))
    }
}
