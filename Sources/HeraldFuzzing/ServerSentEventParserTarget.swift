import HeraldClient

/// `ServerSentEventParser` (HeraldClient), which reads `herald watch`'s event streams.
///
/// The property: the events do not depend on how the bytes arrive — the input fed at once and fed in
/// three pieces split anywhere (the first two input bytes choose where) give the same events, the same
/// last event id and the same retry time, as the parser promises; and the events it produced, written
/// back as a `text/event-stream` by the rules of the WHATWG specification, parse to the same events.
enum ServerSentEventParserTarget {
    static let target = FuzzTarget(
        name: "sse-parser",
        property:
            "ServerSentEventParser: the same events however the bytes are split; written back, they parse the same",
        check: run
    )

    static func run(_ input: [UInt8]) throws {
        var reader = FuzzReader(input)
        let first = Int(reader.byte())
        let second = Int(reader.byte())
        let stream = reader.rest()

        var whole = ServerSentEventParser()
        let events = whole.parse(stream)

        let cut1 = stream.isEmpty ? 0 : first % (stream.count + 1)
        let cut2 = stream.isEmpty ? 0 : cut1 + second % (stream.count - cut1 + 1)
        var pieces = ServerSentEventParser()
        let split =
            pieces.parse(stream[..<cut1]) + pieces.parse(stream[cut1..<cut2]) + pieces.parse(stream[cut2...])
        try require(split == events, "split at \(cut1), \(cut2): \(split), whole: \(events)")
        try require(pieces.lastEventID == whole.lastEventID, "split changed lastEventID")
        try require(pieces.retryMilliseconds == whole.retryMilliseconds, "split changed retryMilliseconds")
        try require(pieces.sawConnected == whole.sawConnected, "split changed sawConnected")

        var written: [UInt8] = []
        for event in events {
            written += Array("id: \(event.id ?? "")\nevent: \(event.event)\n".utf8)
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) {
                written += Array("data: \(line)\n".utf8)
            }
            written.append(0x0A)
        }
        var rereader = ServerSentEventParser()
        let reread = rereader.parse(written)
        try require(
            reread == events,
            "written back as \(String(decoding: written, as: UTF8.self).debugDescription), "
                + "the events \(events) read as \(reread)")
    }
}
