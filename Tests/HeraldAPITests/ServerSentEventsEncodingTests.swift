import Foundation
import HeraldCore
@testable import HeraldAPI
import NIOCore
import Testing

@Suite("Server-Sent Events encoding")
struct ServerSentEventsEncodingTests {
    private static func notification(_ id: String, seq: Int64, removedAt: Date? = nil) -> StoredNotification {
        StoredNotification(
            seq: seq, id: id, deviceID: "device", bundleID: "com.example.app", topic: "com.example.app", pushType: .alert,
            priority: 10, collapseID: nil, expiration: nil, payload: #"{"aps":{"alert":"Hi"}}"#,
            receivedAt: Date(timeIntervalSince1970: 1_750_000_000), removedAt: removedAt
        )
    }

    @Test("a block of changes is one event per change: its cursor in decimal, its type, its JSON on one data line")
    func changesBlock() throws {
        let cursors: [Int64] = [0, 7, 10, 1_000_000, Int64.max]
        let changes = cursors.enumerated().map { index, cursor in
            LiveChange(notification: Self.notification("n\(index)", seq: cursor, removedAt: index == 2 ? Date(timeIntervalSince1970: 1_750_000_001) : nil), cursor: cursor)
        }
        let buffer = try ServerSentEvents.encode(.changes(changes))
        let text = String(buffer: buffer)
        let events = text.components(separatedBy: "\n\n").dropLast()
        #expect(text.hasSuffix("\n\n"))
        #expect(events.count == cursors.count)
        for ((index, event), cursor) in zip(events.enumerated(), cursors) {
            let lines = event.components(separatedBy: "\n")
            #expect(lines.count == 3)
            #expect(lines[0] == "id: \(cursor)")
            #expect(lines[1] == (index == 2 ? "event: removed" : "event: notification"))
            let data = try #require(lines[2].hasPrefix("data: ") ? Array(lines[2].utf8.dropFirst(6)) : nil)
            #expect(try JSONParser.parse(data).objectValue?["id"] == .string("n\(index)"))
        }
    }
}
