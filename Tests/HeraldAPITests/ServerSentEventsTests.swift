import AsyncHTTPClient
import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import Hummingbird
import HummingbirdTesting
import NIOHTTP1
import Testing

@Suite("Server-Sent Events")
struct ServerSentEventsTests {
    @Test(
        "from cursor 0 the stream sends the backlog, then live changes: new, read, removed",
        arguments: StoreKind.allCases)
    func backlogThenLiveChanges(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        try await harness.push(device.deviceID, id: "n1")
        try await harness.push(device.deviceID, id: "n2")
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            try await withTimeout {
                var stream = try await ServerSentEventsClient.connect(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?cursor=0",
                    headers: [("Authorization", "Bearer \(token)")]
                )
                #expect(stream.response.status == .ok)
                #expect(stream.response.headers.first(name: "content-type") == "text/event-stream; charset=utf-8")
                let backlog = try await stream.events(2)
                #expect(backlog.map(\.id) == ["1", "2"])
                #expect(backlog.map(\.event) == ["notification", "notification"])
                #expect(backlog[0].json["id"] == .string("n1"))
                #expect(backlog[0].json["alert"]?["body"] == .string("Hello"))

                try await harness.push(device.deviceID, id: "n3")
                let live = try #require(try await stream.nextEvent())
                #expect(live.id == "3")
                #expect(live.json["id"] == .string("n3"))

                let base = "/v1/devices/\(device.deviceID)/notifications"
                _ = try await client.execute(uri: "\(base)/n1/read", method: .post, headers: bearer(token))
                let read = try #require(try await stream.nextEvent())
                #expect(read.id == "4")
                #expect(read.event == "notification")
                #expect(read.json["read_at"]?.stringValue != nil)

                _ = try await client.execute(uri: "\(base)/n2", method: .delete, headers: bearer(token))
                let removed = try #require(try await stream.nextEvent())
                #expect(removed.id == "5")
                #expect(removed.event == "removed")
                #expect(removed.json["id"] == .string("n2"))
            }
        }
    }

    @Test(
        "a client resumes from Last-Event-ID (over ?cursor=) without gaps or duplicates", arguments: StoreKind.allCases)
    func resumeFromLastEventID(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        for index in 1...3 { try await harness.push(device.deviceID, id: "n\(index)") }
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let path = "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
            try await withTimeout {
                // First connection: reads two events, then goes away.
                let firstTask = Task {
                    var first = try await ServerSentEventsClient.connect(port: port, path: path + "&cursor=0")
                    return try await first.events(2).map(\.id)
                }
                #expect(try await firstTask.value == ["1", "2"])
                for index in 4...5 { try await harness.push(device.deviceID, id: "n\(index)") }

                var resumed = try await ServerSentEventsClient.connect(
                    port: port, path: path + "&cursor=1", headers: [("Last-Event-ID", "2")]
                )
                try await harness.push(device.deviceID, id: "n6")
                let events = try await resumed.events(4)
                #expect(events.map(\.id) == ["3", "4", "5", "6"])
                #expect(events.compactMap { $0.json["id"]?.stringValue } == ["n3", "n4", "n5", "n6"])

                var fromQuery = try await ServerSentEventsClient.connect(port: port, path: path + "&cursor=4")
                #expect(try await fromQuery.events(2).map(\.id) == ["5", "6"])
            }
            let bad = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/stream?cursor=x", method: .get, headers: bearer(token)
            )
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_parameter")
        }
    }

    @Test("without a cursor the stream sends only changes made after it opened", arguments: StoreKind.allCases)
    func noCursorMeansOnlyNewChanges(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        try await harness.push(device.deviceID, id: "old")
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            try await withTimeout {
                var stream = try await ServerSentEventsClient.connect(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
                )
                try await harness.push(device.deviceID, id: "new")
                let event = try #require(try await stream.nextEvent())
                #expect(event.json["id"] == .string("new"))
                #expect(event.id == "2")
            }
        }
    }

    @Test("an idle stream sends heartbeat comments, and a closed one leaves the hub", arguments: StoreKind.allCases)
    func heartbeatAndDisconnect(_ store: StoreKind) async throws {
        let harness = try TestHarness(store, heartbeatInterval: .milliseconds(100))
        let (token, device) = try await harness.makeDevice()
        try await harness.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let reader = Task {
                var stream = try await ServerSentEventsClient.connect(
                    port: port, path: "/v1/devices/\(device.deviceID)/stream?access_token=\(token)"
                )
                var comments: [String] = []
                while !comments.contains("heartbeat"), let block = try await stream.nextBlock() {
                    comments += block.comments
                }
                return comments
            }
            let comments = try await withTimeout { try await reader.value }
            #expect(comments.first == "connected")
            #expect(comments.contains("heartbeat"))
            // The client is gone: the next heartbeat write fails and the session ends.
            try await withTimeout {
                while harness.hub.hasSession(deviceID: device.deviceID) {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(harness.hub.sessionCount == 0)
        }
    }
}
