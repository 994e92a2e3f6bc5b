#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes JSON text into a byte array, for responses on hot paths (the live streams write one
/// notification per event; Foundation's `JSONEncoder` cost more than everything else there).
public struct JSONWriter {
    /// The JSON text written so far (UTF-8).
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = []

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Starts an object (as a value, or as the value of the key just written).
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    /// Writes an object key; the next value written is its value.
    public mutating func key(_ key: String) {
        separate()
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    /// Writes an object key given as a literal that needs no escaping (no `"`, `\\` or control
    /// character): its bytes are copied as they are, without the escape scan of `key(_:)`.
    public mutating func literalKey(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    private var pendingValueAfterKey = false

    /// Writes a comma before a value or key when one is due.
    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func string(_ value: String?) {
        separate()
        guard let value else { return appendLiteral("null") }
        writeString(value)
    }

    public mutating func integer(_ value: Int64?) {
        separate()
        guard let value else { return appendLiteral("null") }
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func integer(_ value: Int?) {
        integer(value.map(Int64.init))
    }

    public mutating func number(_ value: Double?) {
        separate()
        guard let value, value.isFinite else { return appendLiteral("null") }
        if value.rounded() == value, abs(value) < 1e15 {
            bytes.append(contentsOf: String(Int64(value)).utf8)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    public mutating func bool(_ value: Bool?) {
        separate()
        guard let value else { return appendLiteral("null") }
        appendLiteral(value ? "true" : "false")
    }

    public mutating func null() {
        separate()
        appendLiteral("null")
    }

    /// Writes a JSON value.
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members {
                key(name)
                self.value(member)
            }
            endObject()
        }
    }

    private mutating func appendLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `json` as a value, as it is: the caller vouches that it is one valid JSON value (text
    /// this process wrote or validated), which saves parsing and re-writing it. Line breaks become
    /// spaces: in valid JSON they can only be whitespace between tokens (a string holds them
    /// escaped), and the output stays one line, as the streams need (an SSE `data:` line).
    public mutating func raw(_ json: String) {
        separate()
        var json = json
        json.withUTF8 { utf8 in
            let start = bytes.count
            bytes.append(contentsOf: utf8)
            // Most texts have no line break: memchr finds that without a loop over every byte here.
            guard let base = utf8.baseAddress,
                memchr(base, 0x0A, utf8.count) != nil || memchr(base, 0x0D, utf8.count) != nil
            else { return }
            for index in start..<bytes.count where bytes[index] == 0x0A || bytes[index] == 0x0D {
                bytes[index] = UInt8(ascii: " ")
            }
        }
    }

    /// Whether `text` contains the UTF-8 bytes of `needle` (a plain byte search, for deciding whether
    /// a stored JSON text is worth parsing).
    public static func contains(_ needle: StaticString, in text: String) -> Bool {
        var text = text
        return needle.withUTF8Buffer { needle in
            text.withUTF8 { haystack in
                guard let first = needle.first, needle.count <= haystack.count else { return needle.isEmpty }
                var index = 0
                let last = haystack.count - needle.count
                while index <= last {
                    if haystack[index] == first,
                        memcmp(haystack.baseAddress! + index, needle.baseAddress!, needle.count) == 0
                    {
                        return true
                    }
                    index += 1
                }
                return false
            }
        }
    }

    /// Writes a string literal; runs without escapes are copied whole.
    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(byte)
                case 0x0A:
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "n"))
                case 0x0D:
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "r"))
                case 0x09:
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    ])
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0f)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
