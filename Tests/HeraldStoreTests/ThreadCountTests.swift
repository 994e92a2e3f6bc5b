import Foundation
import GRDB
import HeraldCore
import HeraldPolicy
import Testing

@testable import HeraldStore

@Suite("Thread counts")
struct ThreadCountTests {
    static func payload(thread: String?) -> String {
        thread.map { #"{"aps":{"alert":"hi","thread-id":"\#($0)"}}"# } ?? #"{"aps":{"alert":"hi"}}"#
    }

    static func inThread(
        _ id: String, _ thread: String?, device: String = Fixture.deviceID, app: String = Fixture.appID
    ) -> StoredNotification {
        Fixture.notification(id, device: device, app: app, payload: payload(thread: thread))
    }

    @Test(arguments: StoreEngine.all)
    func aThreadCountsTheLiveNotificationsOfOneAppThreadAndDevice(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        _ = try await store.insert([
            Self.inThread("a1", "chat-1"), Self.inThread("a2", "chat-1"), Self.inThread("a3", "chat-1"),
            Self.inThread("b1", "chat-2"),
            Self.inThread("n1", nil), Self.inThread("n2", ""),
            Self.inThread("o1", "chat-1", app: Fixture.otherAppID),
            Self.inThread("d1", "chat-1", device: Fixture.otherDeviceID),
        ])
        #expect(
            try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "chat-1") == 3)
        #expect(
            try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "chat-2") == 1)
        // Without a thread-id (or with an empty one): the app's notifications without one.
        #expect(try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: nil) == 2)
        #expect(try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "") == 2)
        #expect(
            try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.otherAppID, threadID: "chat-1")
                == 1)
        #expect(
            try await store.threadCount(deviceID: Fixture.otherDeviceID, bundleID: Fixture.appID, threadID: "chat-1")
                == 1)
        #expect(try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "none") == 0)
    }

    @Test(arguments: StoreEngine.all)
    func removedAndUndeliveredNotificationsLeaveTheThread(_ engine: StoreEngine) async throws {
        let store = try await engine.makePolicyStore()
        var denied = Self.inThread("x", "chat")
        denied.decision = Fixture.decision(.notDelivered)
        var held = Self.inThread("h", "chat")
        held.decision = Fixture.decision(.heldForFocus, focusID: "work")
        _ = try await store.insert([Self.inThread("a", "chat"), Self.inThread("b", "chat"), denied, held])
        #expect(try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "chat") == 3)
        _ = try await store.remove(deviceID: Fixture.deviceID, id: "a", at: Fixture.time(1))
        _ = try await store.markRead(deviceID: Fixture.deviceID, id: "b", at: Fixture.time(1))
        #expect(try await store.threadCount(deviceID: Fixture.deviceID, bundleID: Fixture.appID, threadID: "chat") == 2)
    }

    @Test func theCountUsesTheThreadIndex() async throws {
        let store = try SQLiteStore.inMemory()
        let plan = try await store.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteStore.threadCountSQL, arguments: ["d", "b", "t"])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("notifications_thread") }, "\(plan)")
    }
}
