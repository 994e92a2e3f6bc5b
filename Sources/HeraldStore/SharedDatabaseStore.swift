import Foundation

// A store several Herald nodes share, and what each node hears of the others (issue 12).

/// What Herald's nodes sharing the database committed, as a node hears of it.
public enum SharedChange: Sendable, Hashable {
    /// Changes to the devices' lists (rows as they are now) and summary events, in seq order.
    case feed(changes: [StoredNotification], summaries: [ReleasedSummary])
    /// Another node changed the registry (a team, key, app, user, device or token) or the apps'
    /// service extensions: read them again.
    case registry
    /// Another node changed what this node keeps in memory of a user, a device or an app.
    case changed(SharedInvalidation)
    /// Listening (again): what changed before is not known — read the registry again and forget
    /// everything kept in memory.
    case listening
}

/// What one node tells the others it changed, beside the feed and the registry (`broadcast`): each
/// node drops what it keeps in memory of it.
public enum SharedInvalidation: Sendable, Hashable {
    /// A user's settings, preferences, Focus modes, summary or authorizations.
    case user(String)
    /// A device's state (locked, ringer, location, …).
    case device(String)
    /// An app's categories or localization files.
    case app(String)
    /// A device's pending local notification requests (added or removed): the leader's trigger
    /// scheduler reads its next time again.
    case pendingRequests(String)
    /// An app on a device has something new to read (a person's response): its live connections
    /// on every node read the store (`AppConnections.signal`).
    case appResponses(deviceID: String, bundleID: String)
}

/// A store several Herald nodes share (PostgreSQL): each node hears every commit to the devices'
/// change feeds, its own and the others', in seq order — so that a push accepted by one node reaches
/// a session connected to another, and every session gets its device's changes in seq order — and
/// every node validates pushes against the same registry.
public protocol SharedDatabaseStore: HeraldStore {
    /// Every commit to the change feed after `cursor`, in seq order and without a gap, the other
    /// nodes' registry changes and invalidations (and `listening` each time it starts listening, for
    /// what changed before), until the store closes or the stream is dropped. When the store loses its listening
    /// connection, it connects again and reads what was committed meanwhile, so nothing is missed.
    func committedChanges(after cursor: Int64) -> AsyncStream<SharedChange>
    /// Tells the other nodes (not this one) that `change` was committed.
    func broadcast(_ change: SharedInvalidation) async throws
    /// Runs `term` while this node leads the services that must act once across nodes (Focus
    /// releases, Scheduled Summaries, the trigger scheduler): waits until it holds the lease, runs
    /// `term`, and cancels it when the lease is lost (a lost connection to the database) — then
    /// tries again, for as long as it is not cancelled. One node leads at a time; another takes over
    /// within seconds when it dies.
    func whileLeading(_ term: @escaping @Sendable () async throws -> Void) async throws
}
