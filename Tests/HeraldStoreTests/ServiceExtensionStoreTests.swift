import Foundation
import HeraldCore
import HeraldStore
import Testing

/// The store contract of apps' service extensions and the pushes waiting for them: one registration
/// per app (a process or a webhook, replaced by the next), and jobs kept until removed, oldest first.
@Suite struct ServiceExtensionStoreTests {
    @Test(arguments: StoreEngine.all)
    func registrationsAreOnePerAppAndReplaced(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        #expect(try await store.serviceExtensions().isEmpty)
        let process = ServiceExtensionRecord(
            bundleID: Fixture.appID, runner: .process(executable: "/usr/bin/ext", arguments: ["-v", "a b"]),
            timeoutMilliseconds: 30_000, memoryLimitBytes: 128 << 20, processes: 2, createdAt: Fixture.time())
        try await store.setServiceExtension(process)
        #expect(try await store.serviceExtensions() == [process])
        let webhook = ServiceExtensionRecord(
            bundleID: Fixture.appID, runner: .webhook(url: "https://example.com/ext", secret: "whsec_c2VjcmV0"),
            timeoutMilliseconds: 5_000,
            memoryLimitBytes: 128 << 20, processes: 4, createdAt: Fixture.time(1))
        try await store.setServiceExtension(webhook)
        let other = ServiceExtensionRecord(
            bundleID: Fixture.otherAppID, runner: .process(executable: "/x", arguments: []),
            timeoutMilliseconds: 1, memoryLimitBytes: 1, processes: 1, createdAt: Fixture.time(2))
        try await store.setServiceExtension(other)
        #expect(try await store.serviceExtensions() == [webhook, other])
        await #expect(throws: StoreError.self) {
            var unknown = other
            unknown.bundleID = "com.example.none"
            try await store.setServiceExtension(unknown)
        }
        #expect(try await store.removeServiceExtension(bundleID: Fixture.appID))
        #expect(try await !store.removeServiceExtension(bundleID: Fixture.appID))
        #expect(try await store.serviceExtensions() == [other])
    }

    @Test(arguments: StoreEngine.all)
    func jobsWaitUntilRemovedOldestFirst(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        func job(_ id: String, at seconds: Int64, payload: String = #"{"aps":{}}"#) -> ExtensionJobRecord {
            ExtensionJobRecord(
                id: id, deviceID: Fixture.deviceID, bundleID: Fixture.appID, token: "ab12", topic: Fixture.appID,
                pushType: "alert", priority: 10, expiration: seconds == 5 ? 1_900_000_000 : nil,
                collapseID: seconds == 5 ? "c" : nil, payload: payload, receivedAt: Fixture.time(seconds))
        }
        try await store.addExtensionJob(job("b", at: 5))
        try await store.addExtensionJob(job("a", at: 1))
        try await store.addExtensionJob(job("c", at: 9))
        #expect(try await store.extensionJobs(limit: 10) == [job("a", at: 1), job("b", at: 5), job("c", at: 9)])
        #expect(try await store.extensionJobs(limit: 1).map(\.id) == ["a"])
        // The same push kept again (a provider's retry) replaces it.
        try await store.addExtensionJob(job("a", at: 1, payload: #"{"aps":{"badge":1}}"#))
        #expect(try await store.extensionJobs(limit: 1).first?.payload == #"{"aps":{"badge":1}}"#)
        try await store.removeExtensionJob(id: "a")
        try await store.removeExtensionJob(id: "missing")
        #expect(try await store.extensionJobs(limit: 10).map(\.id) == ["b", "c"])
        await #expect(throws: StoreError.self) {
            var unknown = job("d", at: 2)
            unknown.deviceID = "device-none"
            try await store.addExtensionJob(unknown)
        }
    }

    static func job(_ id: String, at seconds: Int64, claimedUntil: Date = .distantPast) -> ExtensionJobRecord {
        ExtensionJobRecord(
            id: id, deviceID: Fixture.deviceID, bundleID: Fixture.appID, token: "ab12", topic: Fixture.appID,
            pushType: "alert", priority: 10, expiration: nil, collapseID: nil, payload: #"{"aps":{}}"#,
            receivedAt: Fixture.time(seconds), claimedUntil: claimedUntil)
    }

    @Test(arguments: StoreEngine.all)
    func aJobIsClaimedByOneNodeUntilItsClaimEnds(_ engine: StoreEngine) async throws {
        let store = try await engine.make()
        // Kept by the node that accepted it, claimed until 60 s; one kept before claims existed.
        try await store.addExtensionJob(Self.job("mine", at: 1, claimedUntil: Fixture.time(60)))
        try await store.addExtensionJob(Self.job("old", at: 2))
        #expect(try await store.extensionJobs(limit: 9).map(\.claimedUntil) == [Fixture.time(60), .distantPast])
        // Another node at 30 s: only the unclaimed one, now its own until 90 s.
        let taken = try await store.claimExtensionJobs(through: Fixture.time(30), leaseEnd: Fixture.time(90), limit: 9)
        #expect(taken.map(\.id) == ["old"])
        #expect(taken.first?.claimedUntil == Fixture.time(90))
        #expect(
            try await store.claimExtensionJobs(through: Fixture.time(59), leaseEnd: Fixture.time(99), limit: 9).isEmpty)
        // The first node renews its claim while the job runs: not taken at 60 s.
        try await store.renewExtensionJobs(ids: ["mine"], leaseEnd: Fixture.time(120))
        #expect(
            try await store.claimExtensionJobs(through: Fixture.time(100), leaseEnd: Fixture.time(130), limit: 9).map(
                \.id) == ["old"])
        // It dies: once its claim ended the job is another's, oldest first.
        let after = try await store.claimExtensionJobs(
            through: Fixture.time(130), leaseEnd: Fixture.time(160), limit: 9)
        #expect(after.map(\.id) == ["mine", "old"])
        // A node that stops gives its claims up: claimable at once.
        try await store.renewExtensionJobs(ids: ["mine"], leaseEnd: .distantPast)
        #expect(
            try await store.claimExtensionJobs(through: Fixture.time(131), leaseEnd: Fixture.time(200), limit: 9).map(
                \.id) == ["mine"])
        // A job done is gone: never claimed again.
        try await store.removeExtensionJob(id: "mine")
        #expect(
            try await store.claimExtensionJobs(through: .distantFuture, leaseEnd: Fixture.time(300), limit: 9).map(\.id)
                == ["old"])
    }
}
