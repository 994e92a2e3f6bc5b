import Foundation
import HeraldCore
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test("values of every kind, with whitespace")
    func values() throws {
        let value = try parse(" {\"a\" : [1, -2.5e2, true, false, null, \"x\"], \"b\":{}, \"c\":[]}\n")
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-250), .bool(true), .bool(false), .null, .string("x")]),
                    "b": .object([:]), "c": .array([]),
                ]))
    }

    @Test("string escapes, unicode escapes and surrogate pairs")
    func escapes() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(try parse("\"héllo 😀\"") == .string("héllo 😀"))
    }

    @Test("agrees with Foundation on what is valid")
    func agreesWithFoundation() throws {
        let samples = [
            #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"default"},"k":[1,2,{"x":null}]}"#,
            #"[0.5, 1e-3, -0, 12345678901234]"#, #""plain""#, "123", "true",
        ]
        for sample in samples {
            let ours = try parse(sample)
            let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
            #expect(ours == theirs, "\(sample)")
        }
    }

    @Test("invalid texts are refused")
    func invalid() {
        for text in [
            "", "{", "}", "[1,]", "{\"a\":1,}", "{'a':1}", "01", "1.", ".5", "-", "+1", "tru", "nul",
            "\"unterminated", "\"bad \\x escape\"", "\"\\ud83d\"", "{\"a\" 1}", "[1 2]", "1 2",
            "\"control \u{01} char\"", "NaN", "[\"\\u12\"]",
        ] {
            #expect(throws: PayloadError.self, "\(text)") { try parse(text) }
        }
        #expect(throws: PayloadError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    /// Found by the `json-parser` fuzz target: `1e999` was read as infinity, which `JSONWriter` writes
    /// as `null`, so a payload's number changed on its way to the device.
    @Test("a number beyond a Double's range is refused, not read as infinity")
    func numberOutOfRange() throws {
        for text in ["1e999", "-1e999", "[1, 2e400]", #"{"a":123456789e301}"#] {
            #expect(throws: PayloadError.self, "\(text)") { try parse(text) }
        }
        #expect(try parse("1.7976931348623157e308") == .number(.greatestFiniteMagnitude))
        #expect(try parse("1e-999") == .number(0))
    }

    @Test("nesting deeper than the limit is refused")
    func depth() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: PayloadError.self) { try parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parse(ok)
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("what it writes parses back to the same value, escapes included")
    func roundTrip() throws {
        let value = JSONValue.object([
            "s": .string("quote \" backslash \\ newline \n tab \t control \u{01} é 😀"),
            "n": .array([.number(1), .number(-2.5), .number(1e-7), .null, .bool(true)]),
            "o": .object(["nested": .object([:]), "empty": .array([])]),
        ])
        var writer = JSONWriter()
        writer.value(value)
        #expect(try JSONParser.parse(writer.bytes) == value)
        #expect(!writer.bytes.contains(0x0A))
    }

    @Test("keys and values are separated by commas at every level")
    func structure() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("a")
        writer.integer(1)
        writer.key("b")
        writer.beginArray()
        writer.string("x")
        writer.null()
        writer.endArray()
        writer.key("c")
        writer.beginObject()
        writer.key("d")
        writer.bool(false)
        writer.endObject()
        writer.key("e")
        writer.string(nil)
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":1,"b":["x",null],"c":{"d":false},"e":null}"#)
    }
}
