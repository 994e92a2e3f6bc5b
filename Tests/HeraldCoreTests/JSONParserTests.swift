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

    @Test("a string's plain run ends where a byte-by-byte scan ends, whatever the length and the byte")
    func plainRunMatchesAByteScan() throws {
        var generator = SystemRandomNumberGenerator()
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x0A]
        for length in 0..<40 {
            for _ in 0..<60 {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
                    .map { $0 == 0x22 || $0 == 0x5C ? UInt8(ascii: "a") : $0 }
                if length > 0, Bool.random(using: &generator) {
                    bytes[Int.random(in: 0..<length, using: &generator)] = UInt8.random(
                        in: 0x80...0xFF, using: &generator)
                }
                if length > 0, Bool.random(using: &generator) {
                    bytes[Int.random(in: 0..<length, using: &generator)] = specials.randomElement(using: &generator)!
                }
                let start = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
                var end = start
                while end < length, bytes[end] != 0x22, bytes[end] != 0x5C, bytes[end] >= 0x20 { end += 1 }
                let run = JSONParser.plainRun(in: bytes, from: start)
                #expect(run.end == end, "\(bytes) from \(start)")
                #expect(run.isASCII == bytes[start..<end].allSatisfy { $0 < 0x80 }, "\(bytes) from \(start)")
            }
        }
        // Through the parser: a long string with a quote, a backslash and a control character late.
        let long = String(repeating: "Your package is on its way. ", count: 150)
        #expect(try parse("\"\(long)é\"") == .string(long + "é"))
        #expect(try parse("\"\(long)\\n!\"") == .string(long + "\n!"))
        #expect(throws: PayloadError.self) { try parse("\"\(long)\u{01}\"") }
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
