/// The reason codes of a decision, in the order their rules were evaluated.
///
/// Stored inline as a bit per known rule (no allocation on the decision path); codes this
/// version does not know, decoded from elsewhere, are kept after them.
public struct ReasonCodes: Sequence, Sendable, Hashable, Codable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private var bits: UInt64 = 0
    private var unknown: [ReasonCode] = []

    public init() {}

    public init(_ codes: some Sequence<ReasonCode>) {
        for code in codes { insert(code) }
    }

    public init(arrayLiteral codes: ReasonCode...) {
        self.init(codes)
    }

    @inline(__always)
    mutating func record(_ rule: PolicyRule) {
        bits |= 1 << UInt64(rule.rawValue)
    }

    @inline(__always)
    mutating func remove(_ rule: PolicyRule) {
        bits &= ~(1 << UInt64(rule.rawValue))
    }

    @inline(__always)
    func has(_ rule: PolicyRule) -> Bool {
        bits & (1 << UInt64(rule.rawValue)) != 0
    }

    /// Adds a code (once).
    public mutating func insert(_ code: ReasonCode) {
        if let rule = code.rule {
            record(rule)
        } else if !unknown.contains(code) {
            unknown.append(code)
        }
    }

    /// Whether the code is among the reasons.
    public func contains(_ code: ReasonCode) -> Bool {
        code.rule.map(has) ?? unknown.contains(code)
    }

    public var count: Int { bits.nonzeroBitCount + unknown.count }
    public var isEmpty: Bool { bits == 0 && unknown.isEmpty }

    public func makeIterator() -> IndexingIterator<[ReasonCode]> {
        var codes: [ReasonCode] = []
        codes.reserveCapacity(count)
        var remaining = bits
        while remaining != 0 {
            let index = UInt8(remaining.trailingZeroBitCount)
            remaining &= remaining - 1
            if let rule = PolicyRule(rawValue: index) { codes.append(ReasonCode(rule)) }
        }
        return (codes + unknown).makeIterator()
    }

    public var description: String { map(\.rawValue).description }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([ReasonCode].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Array(self))
    }
}
