// UserNotifications is Herald's module only on Linux (elsewhere the name is Apple's framework).
#if os(Linux)
    import Foundation
    import UserNotifications

    /// `AppEventParser` (UserNotifications), which reads the app's live connection
    /// (`GET /v1/app/stream`: responses and `willPresent` questions) in the app's process.
    ///
    /// The property: the events do not depend on how the bytes arrive — the input fed at once and fed
    /// in three pieces split anywhere (the first two input bytes choose where) give the same events and
    /// the same `: connected` signal, as `AppEventStream` relies on (URLSession hands it chunks cut
    /// anywhere, even inside a UTF-8 character); and the events it produced, written back as a
    /// `text/event-stream` the way the server writes them, parse to the same events.
    enum AppEventStreamTarget {
        static let target = FuzzTarget(
            name: "app-event-stream",
            property:
                "AppEventParser: the same events and connected signal however the bytes are split; written back, they parse the same",
            check: run
        )

        static func run(_ input: [UInt8]) throws {
            var reader = FuzzReader(input)
            let first = Int(reader.byte())
            let second = Int(reader.byte())
            let stream = reader.rest()

            var whole = AppEventParser()
            let output = whole.parse(Data(stream))

            let cut1 = stream.isEmpty ? 0 : first % (stream.count + 1)
            let cut2 = stream.isEmpty ? 0 : cut1 + second % (stream.count - cut1 + 1)
            var pieces = AppEventParser()
            let outputs = [stream[..<cut1], stream[cut1..<cut2], stream[cut2...]].map { pieces.parse(Data($0)) }
            let split = outputs.flatMap(\.events)
            try require(split == output.events, "split at \(cut1), \(cut2): \(split), whole: \(output.events)")
            try require(
                outputs.contains(where: \.sawConnected) == output.sawConnected,
                "split at \(cut1), \(cut2) changed whether `: connected` was seen")

            var written: [UInt8] = []
            for event in output.events {
                if let id = event.id { written += Array("id: \(id)\n".utf8) }
                written += Array("event: \(event.name)\n".utf8)
                for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
                    written += Array("data: \(line)\n".utf8)
                }
                written.append(0x0A)
            }
            var rereader = AppEventParser()
            let reread = rereader.parse(Data(written)).events
            try require(
                reread == output.events,
                "written back as \(String(decoding: written, as: UTF8.self).debugDescription), "
                    + "the events \(output.events) read as \(reread)")
        }
    }
#endif
