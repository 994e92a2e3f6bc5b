/// One fuzz target: a parser of Herald and the property every input must keep.
///
/// `check` runs one input. It returns normally when the property holds (the input may well be
/// refused: refusing is what a parser should do with most inputs) and throws `PropertyViolation`
/// when it does not. libFuzzer (`herald-fuzz` built by `scripts/fuzz`) turns a violation into a
/// crash it saves; the replay test (HeraldFuzzingTests) turns it into a failed test.
public struct FuzzTarget: Sendable {
    /// The name used on the command line and as the corpus directory (`Fuzz/Corpus/<name>`).
    public let name: String
    /// The parser under test and the property checked, in one sentence.
    public let property: String
    public let check: @Sendable ([UInt8]) throws -> Void

    public init(name: String, property: String, check: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.name = name
        self.property = property
        self.check = check
    }

    /// Every target, in the order `scripts/fuzz` runs them (`app-event-stream` only on Linux, the
    /// one platform where UserNotifications is Herald's module).
    public static let all: [FuzzTarget] =
        [
            JSONParserTarget.target,
            PushValidatorTarget.target,
            ProviderTokenTarget.target,
            DeviceTokenTarget.target,
            HTTP2StateMachineTarget.target,
            StringsFileTarget.target,
            StringsDictionaryTarget.target,
            StringCatalogTarget.target,
            StringFormatterTarget.target,
            CursorParameterTarget.target,
            ServerSentEventParserTarget.target,
            APIRequestBodyTarget.target,
            LocalTriggerTarget.target,
            ExtensionAnswerTarget.target,
        ] + platformTargets

    #if os(Linux)
        private static let platformTargets = [AppEventStreamTarget.target]
    #else
        private static let platformTargets: [FuzzTarget] = []
    #endif

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// A broken property: what was expected and what happened instead.
public struct PropertyViolation: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Throws a `PropertyViolation` with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw PropertyViolation(message()) }
}

/// Reads a fuzz input as a sequence of choices: small numbers, flags, and byte runs. Past the end
/// every read gives zero (or nothing), so any input is a complete script.
struct FuzzReader {
    private let bytes: [UInt8]
    private(set) var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> Int {
        Int(byte()) << 8 | Int(byte())
    }

    /// Up to `count` bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = end }
        return index < end ? Array(bytes[index..<end]) : []
    }

    /// A run of bytes, its length given by the next byte.
    mutating func shortRun() -> [UInt8] {
        bytes(Int(byte()))
    }

    mutating func rest() -> [UInt8] {
        bytes(bytes.count)
    }
}
