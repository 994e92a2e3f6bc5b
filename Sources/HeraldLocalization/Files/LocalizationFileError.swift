/// A localization file that could not be read, with a message fit for the app developer who uploaded it.
public struct LocalizationFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of file: `strings`, `stringsdict` or `xcstrings`.
    public let fileKind: String
    /// The 1-based line of the problem, when known.
    public let line: Int?
    /// What is wrong, in a sentence.
    public let reason: String

    /// An error in a file of the given kind.
    public init(fileKind: String, line: Int? = nil, reason: String) {
        self.fileKind = fileKind
        self.line = line
        self.reason = reason
    }

    /// The error as one line: `invalid .strings file (line 3): expected ';' …`.
    public var description: String {
        "invalid .\(fileKind) file" + (line.map { " (line \($0))" } ?? "") + ": \(reason)"
    }
}
