import HeraldCore

extension InterruptionLevel {
    /// The level's rank: passive < active < time-sensitive < critical.
    public var rank: Int {
        switch self {
        case .passive: 0
        case .active: 1
        case .timeSensitive: 2
        case .critical: 3
        }
    }
}
