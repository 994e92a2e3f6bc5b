import Foundation

/// A move of the server's manual clock (`herald serve --clock manual`).
public enum ClockMovement: Sendable, Hashable {
    /// To this instant.
    case to(Date)
    /// Forward by this many seconds from the clock's time when the move starts (moves are serial,
    /// so two advances of an hour move two hours).
    case by(TimeInterval)
}

/// Why a manual clock did not move.
public enum ClockMoveError: Error, Sendable, Hashable {
    /// The time asked for is before the clock's time `now`: the time-driven services have already
    /// acted up to `now` (released what Focus modes held, delivered summaries).
    case backwards(now: Date)
    /// The time asked for is more than `limit` seconds after the clock's time `now`.
    case tooFar(now: Date, limit: TimeInterval)
}

/// The server's manual clock, which the admin clock routes move (`PUT /v1/admin/clock`,
/// `POST /v1/admin/clock/advance`). The server implements it (HeraldServer's `ClockController`);
/// `APIDependencies.clockControl` is nil when the server runs on the wall clock.
public protocol ClockControl: Sendable {
    /// Moves the clock forward, through each time a time-driven service acts at, in order, and
    /// returns the clock's new time once every service has acted up to it.
    ///
    /// - Throws: `ClockMoveError` (backwards, or further than the limit of one move); the clock
    ///   does not move then.
    func move(_ movement: ClockMovement) async throws -> Date
}
