import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldServer
import HeraldStore
import Testing

@Suite("Herald end to end (in-process server, real HTTP/2 clients)")
struct ServerIntegrationTests {
    func alert(_ body: String) -> Data { Data(#"{"aps":{"alert":{"title":"T","body":"\#(body)"}}}"#.utf8) }

    @Test("a push over TLS (h2) and over cleartext HTTP/1.1 is accepted, stored and listed")
    func pushIsStored() async throws {
        let herald = try await RunningHerald.start()
        for tls in [true, false] {
            let client = try herald.apnsClient(tls: tls)
            let result = try await client.send(
                APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.demo", payload: alert("tls \(tls)")))
            #expect(result.status == 200)
            #expect(result.reason == nil)
            #expect(result.apnsUniqueID != nil)
            let id = try #require(result.apnsID)
            let stored = try await herald.application.store.notification(
                deviceID: herald.demo.deviceID, id: id.lowercased())
            #expect(stored?.payload.contains("tls \(tls)") == true)
            try await client.shutdown()
        }
        try await herald.stop()
    }

    @Test("an apns-id sent in upper case comes back byte for byte")
    func apnsIDEcho() async throws {
        let herald = try await RunningHerald.start()
        let client = try herald.apnsClient(tls: true)
        let id = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let result = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.demo", payload: alert("x"), apnsID: id))
        #expect(result.apnsID == id)
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("unknown and unregistered tokens get BadDeviceToken and 410 Unregistered with a timestamp")
    func tokenErrors() async throws {
        let herald = try await RunningHerald.start()
        let client = try herald.apnsClient(tls: true)
        let unknown = try await client.send(
            APNsPush(deviceToken: String(repeating: "0", count: 64), topic: "com.example.demo", payload: alert("x")))
        #expect(unknown.status == 400 && unknown.reason == "BadDeviceToken")
        let removed = try await herald.application.registry.unregisterDeviceToken(herald.demo.deviceToken)
        let gone = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.demo", payload: alert("x")))
        #expect(gone.status == 410 && gone.reason == "Unregistered")
        let expected = removed.unregisteredAt.map { Int64($0.timeIntervalSince1970 * 1000) }
        #expect(gone.timestamp == expected)
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("200 concurrent pushes on one connection are all acknowledged and all stored")
    func concurrentPushes() async throws {
        let herald = try await RunningHerald.start()
        let client = try herald.apnsClient(tls: true)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await client.send(
                        APNsPush(
                            deviceToken: herald.demo.deviceToken, topic: "com.example.demo",
                            payload: self.alert("n\(index)"))
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
        let listed = try await herald.application.store.notifications(
            deviceID: herald.demo.deviceID, after: 0, limit: 1000, now: Date())
        #expect(listed.count == 200)
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("the device rate limit answers TooManyRequests past N pushes per second")
    func rateLimit() async throws {
        let herald = try await RunningHerald.start { $0.deviceRateLimit = 1 }
        let client = try herald.apnsClient(tls: true)
        // A burst on one connection: far more than one per second however slow the machine is.
        let reasons = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<10 {
                group.addTask {
                    try await client.send(
                        APNsPush(
                            deviceToken: herald.demo.deviceToken, topic: "com.example.demo",
                            payload: self.alert("r\(index)"))
                    ).reason
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(reasons.contains { $0 == nil })
        #expect(reasons.filter { $0 == "TooManyRequests" }.count >= 5)
        #expect(reasons.allSatisfy { $0 == nil || $0 == "TooManyRequests" })
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("when the store cannot commit, the provider gets 500 InternalServerError, never a 200")
    func storeFailure() async throws {
        // Closed once the Focus and summary services have read what they read at start-up: closing
        // the database under a read in flight is a data race in GRDB (DatabasePool.read reads its
        // reader pool unlocked, close() sets it to nil; ThreadSanitizer reported it), not the failure
        // this test is about.
        let herald = try await RunningHerald.start(afterPolicyStartUp: true)
        let client = try herald.apnsClient(tls: true)
        try await herald.application.store.close()
        let result = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: "com.example.demo", payload: alert("lost")))
        #expect(result.status == 500)
        #expect(result.reason == "InternalServerError")
        try await client.shutdown()
        await herald.application.shutdown()
        _ = try? await herald.task.value
        try? FileManager.default.removeItem(at: herald.directory)
    }

    @Test("a restarted server keeps the data directory: demo, keys, notifications")
    func restartKeepsData() async throws {
        let first = try await RunningHerald.start()
        let client = try first.apnsClient(tls: true)
        let result = try await client.send(
            APNsPush(deviceToken: first.demo.deviceToken, topic: "com.example.demo", payload: alert("persist")))
        try await client.shutdown()
        await first.application.shutdown()
        try await first.task.value
        let reopened = try await HeraldApplication.make(configuration: first.application.configuration)
        #expect(reopened.demo == first.demo)
        let stored = try await reopened.store.notification(
            deviceID: first.demo.deviceID, id: try #require(result.apnsID))
        #expect(stored != nil)
        try await reopened.store.close()
        try? FileManager.default.removeItem(at: first.directory)
    }
}
