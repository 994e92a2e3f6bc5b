import Foundation

/// A `Localizable.strings` file: Apple's old-style property list of `"key" = "value";` pairs.
///
/// Reads UTF-8 (with or without a byte-order mark) and UTF-16 (with a BOM, or without one when the
/// first character is ASCII), `/* */` and `//` comments, the shorthand `"key";` (value = key),
/// unquoted keys and values (`[A-Za-z0-9_$+/:.-]`), an optional enclosing `{ }`, and the escapes
/// `\n \t \r \" \' \\ \a \b \f \v`, octal `\012`, and `\U1234` (`\u` too; surrogate pairs
/// `\UD83D\UDE00` join). A later duplicate key replaces an earlier one.
package enum StringsFile {
    package static func parse(_ data: Data) throws -> [String: String] {
        var parser = Parser(scalars: Array(try decode(data).unicodeScalars))
        return try parser.parse()
    }

    /// The text of the file, decoded by its byte-order mark or, without one, by its first bytes.
    static func decode(_ data: Data) throws -> String {
        let bytes = [UInt8](data)
        func utf16(_ body: ArraySlice<UInt8>, bigEndian: Bool) -> String {
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            for index in stride(from: body.startIndex, to: body.endIndex - 1, by: 2) {
                let (high, low) = bigEndian ? (body[index], body[index + 1]) : (body[index + 1], body[index])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            return String(decoding: units, as: UTF16.self)
        }
        switch (bytes.first, bytes.dropFirst().first) {
        case (0xFF, 0xFE): return utf16(bytes.dropFirst(2), bigEndian: false)
        case (0xFE, 0xFF): return utf16(bytes.dropFirst(2), bigEndian: true)
        case (0x00, let second?) where second != 0: return utf16(bytes[...], bigEndian: true)
        case (let first?, 0x00) where first != 0: return utf16(bytes[...], bigEndian: false)
        default:
            let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
            guard let text = String(validating: body, as: UTF8.self) else {
                throw LocalizationFileError(
                    fileKind: "strings", reason: "the file is neither UTF-8 nor UTF-16 with a byte-order mark")
            }
            return text
        }
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        func error(_ reason: String) -> LocalizationFileError {
            LocalizationFileError(fileKind: "strings", line: line, reason: reason)
        }

        mutating func advance() {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }

        mutating func parse() throws -> [String: String] {
            var entries: [String: String] = [:]
            try skipTrivia()
            let braced = current == "{"
            if braced {
                advance()
                try skipTrivia()
            }
            while let scalar = current, !(braced && scalar == "}") {
                let key = try string(expecting: "a key")
                try skipTrivia()
                var value = key
                if current == "=" {
                    advance()
                    try skipTrivia()
                    value = try string(expecting: "a value after '='")
                    try skipTrivia()
                }
                guard current == ";" else { throw error("expected ';' after the entry for \"\(key)\"") }
                advance()
                entries[key] = value
                try skipTrivia()
            }
            if braced {
                guard current == "}" else { throw error("expected '}' at the end") }
                advance()
                try skipTrivia()
            }
            guard current == nil else { throw error("unexpected text after the last entry") }
            return entries
        }

        mutating func skipTrivia() throws {
            while let scalar = current {
                if scalar.properties.isWhitespace {
                    advance()
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                    while let next = current, next != "\n" { advance() }
                } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                    let start = line
                    index += 2
                    while current != nil, !(current == "*" && index + 1 < scalars.count && scalars[index + 1] == "/") {
                        advance()
                    }
                    guard current != nil else {
                        throw LocalizationFileError(
                            fileKind: "strings", line: start, reason: "a /* comment is never closed")
                    }
                    index += 2
                } else {
                    return
                }
            }
        }

        mutating func string(expecting what: String) throws -> String {
            guard let first = current else { throw error("expected \(what), found the end of the file") }
            if first == "\"" { return try quoted() }
            var text = String.UnicodeScalarView()
            while let scalar = current, scalar.isASCII,
                Character(scalar).isLetter || Character(scalar).isNumber || "_$+/:.-".unicodeScalars.contains(scalar)
            {
                text.append(scalar)
                advance()
            }
            guard !text.isEmpty else { throw error("expected \(what), found '\(Character(first))'") }
            return String(text)
        }

        mutating func quoted() throws -> String {
            let start = line
            advance()
            var text = String.UnicodeScalarView()
            while let scalar = current {
                advance()
                switch scalar {
                case "\"": return String(text)
                case "\\": try escape(into: &text)
                default: text.append(scalar)
                }
            }
            throw LocalizationFileError(fileKind: "strings", line: start, reason: "a quoted string is never closed")
        }

        mutating func escape(into text: inout String.UnicodeScalarView) throws {
            guard let scalar = current else { throw error("a backslash ends the file") }
            advance()
            let simple: [Unicode.Scalar: Unicode.Scalar] = [
                "n": "\n", "t": "\t", "r": "\r", "a": "\u{07}", "b": "\u{08}", "f": "\u{0C}", "v": "\u{0B}",
            ]
            if let replacement = simple[scalar] {
                text.append(replacement)
            } else if scalar == "U" || scalar == "u" {
                var unit = hexadecimal()
                if (0xD800..<0xDC00).contains(unit), current == "\\", index + 1 < scalars.count,
                    scalars[index + 1] == "U" || scalars[index + 1] == "u"
                {
                    let mark = (index, line)
                    index += 2
                    let low = hexadecimal()
                    if (0xDC00..<0xE000).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        (index, line) = mark
                    }
                }
                text.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            } else if ("0"..."7").contains(scalar) {
                var value = scalar.value - 48
                for _ in 0..<2 {
                    guard let digit = current, ("0"..."7").contains(digit) else { break }
                    value = value * 8 + digit.value - 48
                    advance()
                }
                text.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            } else {
                text.append(scalar)  // \" \' \\ and any other character stand for themselves
            }
        }

        mutating func hexadecimal() -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let scalar = current, let digit = Character(scalar).hexDigitValue else { break }
                value = value * 16 + UInt32(digit)
                advance()
            }
            return value
        }
    }
}
