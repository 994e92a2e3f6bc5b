import HeraldCore
import Testing

@Suite("JSON writer")
struct JSONWriterFastPathTests {
    private func text(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("strings: runs without escapes are copied, every escape is written where it was")
    func escapes() throws {
        let samples = ["", "plain", "\"", "a\"b\\c", "line\nbreak\r\ttab", "\u{01}x\u{1F}", "émoji 🎉 \"q\"", "end\\"]
        for sample in samples {
            let json = text { $0.string(sample) }
            #expect(!json.contains("\n"))
            #expect(try JSONParser.parse(Array(json.utf8)) == .string(sample), "\(json)")
        }
        #expect(text { $0.string("a\u{01}b") } == #""a\u0001b""#)
    }

    @Test("raw JSON is written as it is, one line, with separators around it")
    func raw() throws {
        let payload = "{\n  \"aps\": {\"alert\": \"a\\nb\"},\r\n  \"k\": [1, 2]\n}"
        let json = text { writer in
            writer.beginObject()
            writer.key("payload")
            writer.raw(payload)
            writer.key("next")
            writer.integer(1)
            writer.endObject()
        }
        #expect(!json.contains("\n") && !json.contains("\r"))
        let parsed = try JSONParser.parse(Array(json.utf8))
        #expect(parsed.objectValue?["payload"] == (try JSONParser.parse(Array(payload.utf8))))
        #expect(parsed.objectValue?["next"] == .number(1))
        // Only a carriage return, and none at all
        #expect(text { $0.raw("{\"a\":\r1}") } == "{\"a\": 1}")
        #expect(text { $0.raw("[1,2]") } == "[1,2]")
    }

    @Test("a literal key is written like the same key through key(_:)")
    func literalKey() {
        let literal = text { writer in
            writer.beginObject()
            writer.literalKey("id")
            writer.string("x")
            writer.literalKey("received_at")
            writer.null()
            writer.endObject()
        }
        let escaped = text { writer in
            writer.beginObject()
            writer.key("id")
            writer.string("x")
            writer.key("received_at")
            writer.null()
            writer.endObject()
        }
        #expect(literal == escaped && literal == #"{"id":"x","received_at":null}"#)
    }

    @Test("contains finds byte sequences anywhere and nothing that is not there")
    func contains() {
        #expect(JSONWriter.contains(#""badge""#, in: #"{"aps":{"badge":3}}"#))
        #expect(JSONWriter.contains(#""badge":true"#, in: #"{"a":1,"badge":true}"#))
        #expect(!JSONWriter.contains(#""badge":true"#, in: #"{"badge":false,"t":"\"badge\":true"}"#))
        #expect(!JSONWriter.contains(#""display""#, in: ""))
        #expect(JSONWriter.contains("", in: "x"))
        #expect(!JSONWriter.contains("abc", in: "ab"))
    }
}
