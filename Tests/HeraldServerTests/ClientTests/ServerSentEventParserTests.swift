import HeraldClient
import Testing

extension ClientTests {
    @Suite("Parsing text/event-stream incrementally")
    struct ServerSentEventParserTests {
        private static let stream = """
            : connected\r
            id: 41\r
            event: notification\r
            data: {"id":"a",\r
            data:  "n":1}\r
            \r
            retry: 2500
            event: removed
            data: {"id":"b"}

            : keep-alive

            data: the id line may come after the data
            id: 43


            """

        private static let expected = [
            ServerSentEvent(id: "41", event: "notification", data: "{\"id\":\"a\",\n \"n\":1}"),
            ServerSentEvent(id: "41", event: "removed", data: #"{"id":"b"}"#),
            ServerSentEvent(id: "43", event: "message", data: "the id line may come after the data"),
        ]

        @Test(
            "Herald's `: connected` comment is noted (the session is subscribed); other comments are not, and a reset forgets it"
        )
        func connectedComment() {
            var parser = ServerSentEventParser()
            #expect(parser.parse(Array(": keep-alive\n:connected\n: connected later\n".utf8)).isEmpty)
            #expect(!parser.sawConnected)
            _ = parser.parse(Array(": conne".utf8))
            #expect(!parser.sawConnected)
            _ = parser.parse(Array("cted\r\n".utf8))
            #expect(parser.sawConnected)
            parser.reset()
            #expect(!parser.sawConnected)
        }

        @Test func aWholeStreamGivesItsEventsInOrder() {
            var parser = ServerSentEventParser()
            #expect(parser.parse(Array(Self.stream.utf8)) == Self.expected)
            #expect(parser.lastEventID == "43")
            #expect(parser.retryMilliseconds == 2500)
        }

        @Test func chunksSplitAtAnyByteGiveTheSameEvents() {
            let bytes = Array(Self.stream.utf8)
            for split in 0...bytes.count {
                var parser = ServerSentEventParser()
                let events = parser.parse(bytes[..<split]) + parser.parse(bytes[split...])
                #expect(events == Self.expected, "split at byte \(split)")
            }
        }

        @Test func oneByteAtATimeGivesTheSameEvents() {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            for byte in Self.stream.utf8 { events += parser.parse([byte]) }
            #expect(events == Self.expected)
        }

        @Test func aMultibyteCharacterSplitAcrossChunksSurvives() {
            let bytes = Array("data: grüß 🎉\n\n".utf8)
            var parser = ServerSentEventParser()
            let split = bytes.firstIndex(of: 0xC3)! + 1  // inside "ü"
            let events = parser.parse(bytes[..<split]) + parser.parse(bytes[split...])
            #expect(events == [ServerSentEvent(id: nil, data: "grüß 🎉")])
        }

        @Test func anEventIsDispatchedOnlyAtTheBlankLine() {
            var parser = ServerSentEventParser()
            #expect(parser.parse(Array("id: 7\ndata: x\n".utf8)).isEmpty)
            #expect(parser.parse(Array("\n".utf8)) == [ServerSentEvent(id: "7", data: "x")])
        }

        @Test func commentsAndIDOnlyBlocksDispatchNothingButTheIDSticks() {
            var parser = ServerSentEventParser()
            #expect(parser.parse(Array(": ping\n\nid: 9\n\n".utf8)).isEmpty)
            #expect(parser.lastEventID == "9")
            #expect(parser.parse(Array("data: y\n\n".utf8)) == [ServerSentEvent(id: "9", data: "y")])
        }

        @Test func fieldDetailsFollowTheSpec() {
            var parser = ServerSentEventParser()
            let events = parser.parse(Array("data\n\ndata:no-space\ndata:  two spaces\nunknown: x\n\n".utf8))
            #expect(
                events == [
                    ServerSentEvent(id: nil, data: ""),
                    ServerSentEvent(id: nil, data: "no-space\n two spaces"),
                ])
        }

        @Test func aLoneCarriageReturnEndsALine() {
            var parser = ServerSentEventParser()
            #expect(parser.parse(Array("data: a\rdata: b\r\r".utf8)) == [ServerSentEvent(id: nil, data: "a\nb")])
        }

        @Test func aByteOrderMarkAtTheStartIsIgnored() {
            var parser = ServerSentEventParser()
            #expect(
                parser.parse([0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8)) == [ServerSentEvent(id: nil, data: "x")])
        }

        @Test func theIDOfAnUnfinishedEventDoesNotCount() {
            var parser = ServerSentEventParser(lastEventID: "5")
            #expect(parser.parse(Array("id: 6\ndata: half".utf8)).isEmpty)
            #expect(parser.lastEventID == "5")
            // The connection drops: a reconnect resumes after 5, and event 6 arrives again whole.
            parser.reset()
            #expect(parser.lastEventID == "5")
            #expect(parser.parse(Array("data: whole\n\n".utf8)) == [ServerSentEvent(id: "5", data: "whole")])
        }
    }
}
