/// SplitMix64 (Steele, Lea and Flood): a small seeded generator, for what must be the same on every
/// run — the benchmarks' inputs, the tests' random cases — and for cheap ids in a benchmark. Not for
/// anything secret: Herald's tokens and ids come from the system's generator (`RandomPool`).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    /// Distinct seeds give distinct streams (the output mixes the whole state).
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
