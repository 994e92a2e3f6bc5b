import Foundation
import HeraldCore
import HeraldStore
import Synchronization
import Testing

@Suite("Notification writer")
struct NotificationWriterTests {
    /// What `onCommit` reported, collected once the writes are done.
    struct CommitLog {
        let stream: AsyncStream<[StoredNotification]>
        let sink: AsyncStream<[StoredNotification]>.Continuation

        init() { (stream, sink) = AsyncStream.makeStream() }

        /// Every batch reported so far; reports arriving later are dropped.
        func batches() async -> [[StoredNotification]] {
            sink.finish()
            var batches: [[StoredNotification]] = []
            for await batch in stream { batches.append(batch) }
            return batches
        }
    }

    @Test func concurrentWritesAreGroupedIntoFewerTransactions() async throws {
        let spy = SpyStore(try await Fixture.makeStore())
        let commits = CommitLog()
        let sink = commits.sink
        let writer = NotificationWriter(store: spy, maxBatch: 64) { sink.yield($0) }
        let running = Task { try await writer.run() }
        defer { running.cancel() }
        let count = 2000

        // When 2000 writers write at once
        let stored = try await withThrowingTaskGroup(of: StoredNotification.self) { group in
            for index in 0..<count {
                let device = index.isMultiple(of: 2) ? Fixture.deviceID : Fixture.otherDeviceID
                group.addTask { try await writer.write(Fixture.notification("n\(index)", device: device)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        // Then all are committed, onCommit saw every seq once in increasing order, in fewer inserts
        let committed = await commits.batches().flatMap { $0 }
        #expect(committed.map(\.seq) == Array(1...Int64(count)))
        #expect(Set(stored.map(\.seq)).count == count)
        let committedByID = Dictionary(uniqueKeysWithValues: committed.map { ($0.id, $0) })
        #expect(stored.allSatisfy { committedByID[$0.id] == $0 })
        let batchSizes = await spy.log.insertBatchSizes
        #expect(batchSizes.count < count)
        #expect(batchSizes.reduce(0, +) == count)
        #expect(batchSizes.allSatisfy { $0 <= 64 })
        #expect(try await spy.latestCursor() == Int64(count))
        let listed = try await spy.notifications(
            deviceID: Fixture.deviceID, after: 0, limit: count, now: Fixture.time())
        #expect(listed.count == count / 2)
    }

    @Test(arguments: StoreEngine.all)
    func onCommitSeesABatchBeforeItsWritersResume(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let commits = CommitLog()
        let sink = commits.sink
        let writer = NotificationWriter(store: store) { sink.yield($0) }
        let running = Task { try await writer.run() }
        defer { running.cancel() }

        let stored = try await writer.write(Fixture.notification("n"))

        // `batches()` drops anything reported after the write returned.
        #expect(await commits.batches() == [[stored]])
        #expect(stored.seq == 1)
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "n") == stored)
    }

    @Test(arguments: StoreEngine.all)
    func aWriterGetsItsOwnRowWhenItsWriteTombstonesAnother(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        try await store.insert([Fixture.notification("old", collapseID: "c")])
        let commits = CommitLog()
        let sink = commits.sink
        let writer = NotificationWriter(store: store) { sink.yield($0) }
        let running = Task { try await writer.run() }
        defer { running.cancel() }

        let stored = try await writer.write(Fixture.notification("new", collapseID: "c", receivedAt: Fixture.time(5)))

        #expect(stored.id == "new" && stored.seq == 3 && !stored.isRemoved)
        let reported = await commits.batches()
        #expect(reported.count == 1)
        #expect(reported.first?.map(\.id) == ["old", "new"])
        #expect(reported.first?.first?.removedAt == Fixture.time(5))
    }

    @Test func aFailedBatchFailsEveryWriterAndIsNotReported() async throws {
        let spy = SpyStore(try await Fixture.makeStore())
        await spy.log.setFailsInserts(true)
        let commits = CommitLog()
        let sink = commits.sink
        let writer = NotificationWriter(store: spy) { sink.yield($0) }
        let running = Task { try await writer.run() }
        defer { running.cancel() }

        // When every insert fails, every writer gets the error
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        _ = try await writer.write(Fixture.notification("n\(index)"))
                        return false
                    } catch {
                        return error is SpyStore.InjectedFailure
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(failures == Array(repeating: true, count: 50))

        // Then the writer still works once the store recovers, and only that commit is reported
        await spy.log.setFailsInserts(false)
        let stored = try await writer.write(Fixture.notification("after"))
        #expect(stored.seq == 1)
        #expect(await commits.batches() == [[stored]])
    }

    @Test(arguments: StoreEngine.all)
    func aStoreErrorReachesTheWriter(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let writer = NotificationWriter(store: store) { _ in }
        let running = Task { try await writer.run() }
        defer { running.cancel() }
        let error = await #expect(throws: StoreError.self) {
            try await writer.write(Fixture.notification("orphan", device: "no-such-device"))
        }
        #expect(error?.kind == .notFound)
        #expect(try await writer.write(Fixture.notification("fine")).seq == 1)
    }

    @Test(arguments: StoreEngine.all)
    func theNextBatchIsCommittedWhileTheLastOneIsStillBeingDelivered(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let commits = CommitLog()
        let sink = commits.sink
        // The first batch's fan-out holds the delivery queue until the test lets it go
        let gate = DispatchSemaphore(value: 0)
        let writer = NotificationWriter(store: store) { changes in
            if changes.contains(where: { $0.id == "first" }) { gate.wait() }
            sink.yield(changes)
        }
        let running = Task { try await writer.run() }
        defer { running.cancel() }
        let first = Task { try await writer.write(Fixture.notification("first")) }
        try await Self.waitUntilStored("first", in: store)

        // When another write comes while the first is being delivered
        let second = Task { try await writer.write(Fixture.notification("second")) }

        // Then it is committed meanwhile, and neither writer has heard back yet
        try await Self.waitUntilStored("second", in: store)
        let secondRow = try #require(try await store.notification(deviceID: Fixture.deviceID, id: "second"))
        #expect(secondRow.seq == 2)
        gate.signal()

        // And once the fan-out goes on, both batches are reported in commit order, each before its writer resumes
        let firstStored = try await first.value
        let secondStored = try await second.value
        #expect(firstStored.seq == 1 && secondStored == secondRow)
        #expect(await commits.batches() == [[firstStored], [secondStored]])
    }

    /// Waits (at most 60 s: a guard against a hang on a loaded machine, not a delay) until `id` is in the store.
    private static func waitUntilStored(_ id: String, in store: any NotificationListStore) async throws {
        for _ in 0..<6000 {
            if try await store.notification(deviceID: Fixture.deviceID, id: id) != nil { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(id) was not stored within 60 s")
    }

    @Test(
        "as a service: writes wait for run(); a stop commits what is queued, answers every writer, then refuses writes",
        arguments: StoreEngine.all)
    func orderlyShutdown(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        let commits = CommitLog()
        let sink = commits.sink
        let writer = NotificationWriter(store: store, maxBatch: 8) { sink.yield($0) }

        // Writes enqueued before the service runs wait for it.
        let results = HeraldMutex<[Result<StoredNotification, any Error>]>([])
        for index in 0..<100 {
            writer.enqueue(Fixture.notification("n\(index)")) { result in
                results.withLock { $0.append(result.map(\.row)) }
            }
        }
        #expect(results.withLock { $0.isEmpty })
        #expect(try await store.latestCursor() == 0)

        // Stopped at once: run() returns only when all 100 are committed and answered.
        let running = Task { try await writer.run() }
        running.cancel()
        try await running.value
        let answered = results.withLock { $0 }
        #expect(answered.count == 100)
        #expect(answered.allSatisfy { (try? $0.get()) != nil })
        #expect(
            try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 200, now: Fixture.time()).count
                == 100)
        #expect(await commits.batches().flatMap { $0 }.count == 100)

        // After the stop, a write fails at once with `Stopped` and stores nothing.
        await #expect(throws: NotificationWriter.Stopped.self) {
            try await writer.write(Fixture.notification("late"))
        }
        #expect(try await store.notification(deviceID: Fixture.deviceID, id: "late") == nil)
    }
}
