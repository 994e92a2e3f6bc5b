// The events of the app's live connection (`text/event-stream`), read from the bytes as they
// arrive: what `AppEventStream` does with each chunk, without the connection, so that it can be
// fuzzed (`app-event-stream` in HeraldFuzzing, docs/reliability.md).
#if os(Linux)
    import Foundation

    /// Splits the stream into events at each empty line (`\n\n`), keeping an incomplete event for the
    /// next chunk, so the events do not depend on where the network cut the bytes.
    ///
    /// Reads `event:`, `data:` and `id:` lines (ended by LF, CRLF or CR, as the SSE spec allows)
    /// and the comment `: connected` once the server has subscribed the connection. An event
    /// without a `data:` line is not delivered.
    package struct AppEventParser: Sendable {
        /// One event of the stream.
        package struct Event: Hashable, Sendable {
            package var id: String?
            package var name: String
            package var data: String

            package init(id: String?, name: String, data: String) {
                self.id = id
                self.name = name
                self.data = data
            }
        }

        /// What one chunk completed.
        package struct Output: Hashable, Sendable {
            /// The events the chunk completed, in order.
            package var events: [Event] = []
            /// Whether one of those blocks held the server's `: connected` line.
            package var sawConnected = false
        }

        /// The bytes after the last complete event, line ends made `\n`.
        private var buffer = Data()
        /// Whether the last byte read was a CR (made `\n`): an LF right after it is the same line end,
        /// also when the network cut the CRLF between two chunks.
        private var afterCR = false

        package init() {}

        /// Adds a chunk; returns the events it completed.
        package mutating func parse(_ chunk: Data) -> Output {
            var output = Output()
            // Lines end with CRLF, LF or CR (the SSE spec): each becomes one `\n`. (Herald sends LF
            // only; a CR read as part of a value made written-back events read differently, found by
            // the app-event-stream fuzz target.)
            for byte in chunk {
                if afterCR {
                    afterCR = false
                    if byte == 0x0A { continue }
                }
                if byte == 0x0D {
                    buffer.append(0x0A)
                    afterCR = true
                } else {
                    buffer.append(byte)
                }
            }
            // Events end with an empty line.
            while let range = buffer.range(of: Data("\n\n".utf8)) {
                let block = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                var event = Event(id: nil, name: "message", data: "")
                var dataLines: [String] = []
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(": connected") { output.sawConnected = true }
                    if line.hasPrefix(":") { continue }
                    let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    let field = String(parts[0])
                    var value = parts.count > 1 ? String(parts[1]) : ""
                    if value.hasPrefix(" ") { value.removeFirst() }
                    switch field {
                    case "event": event.name = value
                    case "data": dataLines.append(value)
                    case "id": event.id = value
                    default: break
                    }
                }
                if !dataLines.isEmpty {
                    event.data = dataLines.joined(separator: "\n")
                    output.events.append(event)
                }
            }
            return output
        }
    }
#endif
