import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import NIOCore
import Testing

@testable import HeraldAPI

@Suite("Server-Sent Events encoding")
struct ServerSentEventsEncodingTests {
    private static func notification(_ id: String, seq: Int64, removedAt: Date? = nil) -> StoredNotification {
        StoredNotification(
            seq: seq, id: id, deviceID: "device", bundleID: "com.example.app", topic: "com.example.app",
            pushType: .alert,
            priority: 10, collapseID: nil, expiration: nil, payload: #"{"aps":{"alert":"Hi"}}"#,
            receivedAt: Date(timeIntervalSince1970: 1_750_000_000), removedAt: removedAt
        )
    }

    @Test("a block of changes is one event per change: its cursor in decimal, its type, its JSON on one data line")
    func changesBlock() throws {
        let cursors: [Int64] = [0, 7, 10, 1_000_000, Int64.max]
        let changes = cursors.enumerated().map { index, cursor in
            LiveChange(
                notification: Self.notification(
                    "n\(index)", seq: cursor, removedAt: index == 2 ? Date(timeIntervalSince1970: 1_750_000_001) : nil),
                cursor: cursor)
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

    @Test("changes are written in blocks of about the chunk size, which together are the whole block")
    func changesWrittenInChunks() async throws {
        let changes = (1...50).map {
            LiveChange(notification: Self.notification("n\($0)", seq: Int64($0)), cursor: Int64($0))
        }
        let whole = try ServerSentEvents.encode(.changes(changes))
        let oneEvent = whole.readableBytes / 50
        var chunks: [ByteBuffer] = []
        try await ServerSentEvents.write(.changes(changes), chunkBytes: 1_000) { chunks.append($0) }
        #expect(chunks.count > 1)
        for chunk in chunks {
            #expect(chunk.readableBytes < 1_000 + 2 * oneEvent)
            #expect(String(buffer: chunk).hasSuffix("\n\n"))
        }
        var joined = ByteBuffer()
        for var chunk in chunks { joined.writeBuffer(&chunk) }
        #expect(joined == whole)
        // Other outputs are one block.
        var others: [ByteBuffer] = []
        try await ServerSentEvents.write(.heartbeat, chunkBytes: 1) { others.append($0) }
        #expect(others == [ByteBuffer(string: ": heartbeat\n\n")])
    }

    @Test("timestamps on a millisecond are written digit by digit, as the ISO 8601 format style writes them")
    func timestamps() throws {
        let known: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (951_868_799_999, "2000-02-29T23:59:59.999Z"),
            (1_795_320_228_459, "2026-11-22T04:03:48.459Z"),
            (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        ]
        for (milliseconds, text) in known {
            #expect(Timestamp.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000)) == text)
        }
        // Every day of four years around a leap year and a century, at varied times, reads back as
        // the same millisecond through the ISO 8601 parser
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        var generator = SystemRandomNumberGenerator()
        for day in Int64(10_956)...Int64(12_418) {  // 1999-12-31 … 2004-01-01
            let milliseconds = day * 86_400_000 + Int64.random(in: 0..<86_400_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = try #require(Timestamp.fast(date))
            let parsed = try style.parse(text)
            #expect((parsed.timeIntervalSince1970 * 1000).rounded() == Double(milliseconds), "\(text)")
            #expect(text.prefix(19) == date.formatted(style).prefix(19))
        }
        // A date between milliseconds, or before 1970, is left to the format style
        #expect(Timestamp.fast(Date(timeIntervalSince1970: 1.000_5)) == nil)
        #expect(Timestamp.fast(Date(timeIntervalSince1970: -1)) == nil)
        #expect(Timestamp.string(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
    }
}
