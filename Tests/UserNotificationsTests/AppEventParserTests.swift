// The app's live-connection parser: events split at empty lines whatever the line ends (LF, CRLF,
// CR) and wherever the network cuts the bytes.
#if os(Linux)
    import Foundation
    import Testing
    @testable import UserNotifications

    @Suite struct AppEventParserTests {
        static func events(_ chunks: [String]) -> [AppEventParser.Event] {
            var parser = AppEventParser()
            return chunks.flatMap { parser.parse(Data($0.utf8)).events }
        }

        @Test func lineEndsAreLFCRLFOrCRWhereverTheBytesAreCut() {
            let expected = [
                AppEventParser.Event(id: "1", name: "response", data: "{}"),
                AppEventParser.Event(id: ": a", name: "message", data: ""),
            ]
            // Found by the app-event-stream fuzz target: `id:: a` ended by CRLF kept the CR in the id.
            for stream in [
                "id: 1\nevent: response\ndata: {}\n\nid:: a\ndata\n\n",
                "id: 1\r\nevent: response\r\ndata: {}\r\n\r\nid:: a\r\ndata\r\n\r\n",
                "id: 1\revent: response\rdata: {}\r\rid:: a\rdata\r\r",
            ] {
                #expect(Self.events([stream]) == expected, "\(stream.debugDescription)")
                // Every cut into two chunks, a CRLF cut in the middle included.
                let bytes = Array(stream.utf8)
                for cut in 1..<bytes.count {
                    let chunks = [
                        String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self),
                    ]
                    #expect(Self.events(chunks) == expected, "\(stream.debugDescription) cut at \(cut)")
                }
            }
        }
    }
#endif
