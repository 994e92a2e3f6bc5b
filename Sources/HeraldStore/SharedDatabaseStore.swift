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
    /// Another node's message (`send`).
    case message(from: String, NodeMessage)
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
    /// This node's id in messages (`SharedChange.message(from:)`, `NodeMessage.ask(to:)`).
    var nodeID: String { get }
    /// Sends `message` to the other nodes (not this one). At most 7,900 bytes of text.
    func send(_ message: NodeMessage) async throws
}

/// What a node tells the others of its live connections (`NodeMessage.presence`).
public enum PresenceChange: Sendable, Hashable {
    /// The first live session of a device connected to the node.
    case sessionUp(deviceID: String)
    /// The node's last session of the device ended.
    case sessionDown(deviceID: String)
    /// The first connection of an app on a device that answers `willPresent`.
    case appUp(deviceID: String, bundleID: String)
    /// The node's last such connection ended.
    case appDown(deviceID: String, bundleID: String)
}

/// A message from one node to the others sharing the database, beside the feed and the invalidations:
/// who is connected where (so that a push accepted by one node knows a device's session or a
/// foreground app on another), and `willPresent` questions put to an app connected to another node.
public enum NodeMessage: Sendable, Hashable {
    /// Changes of the sender's presence, in order.
    case presence([PresenceChange])
    /// The sender's presence as a whole follows (in `presence` messages): forget what it said before.
    case reset
    /// The sender (re)started listening and knows nobody's presence: each node sends its own (`reset`,
    /// then `presence`).
    case hello
    /// The sender is alive (a node unheard for a while is taken as gone, its presence with it).
    case alive
    /// The sender is stopping: its presence is gone.
    case bye
    /// A `willPresent` question (JSON) for the app connection on node `to`.
    case ask(to: String, id: String, question: String)
    /// The answer to question `id` (JSON of the presentation options; nil: none, not presented).
    case answer(to: String, id: String, options: String?)
    /// A named event for a device's sessions (outside the change feed: `focus`,
    /// `authorization_requests`), for those on the other nodes; `json` its data.
    case event(deviceID: String, name: String, json: String)

    /// The message as text (a NOTIFY payload): one line per presence change.
    public var text: String {
        switch self {
        case .presence(let changes):
            "presence\n"
                + changes.map { change in
                    switch change {
                    case .sessionUp(let device): "+s \(device)"
                    case .sessionDown(let device): "-s \(device)"
                    case .appUp(let device, let bundle): "+a \(device) \(bundle)"
                    case .appDown(let device, let bundle): "-a \(device) \(bundle)"
                    }
                }.joined(separator: "\n")
        case .reset: "reset"
        case .hello: "hello"
        case .alive: "alive"
        case .bye: "bye"
        case .ask(let to, let id, let question): "ask \(to) \(id) \(question)"
        case .answer(let to, let id, let options): "answer \(to) \(id) \(options ?? "null")"
        case .event(let deviceID, let name, let json): "event \(deviceID) \(name) \(json)"
        }
    }

    public init?(text: String) {
        if text.hasPrefix("presence\n") || text == "presence" {
            var changes: [PresenceChange] = []
            for line in text.split(separator: "\n").dropFirst() {
                let parts = line.split(separator: " ").map(String.init)
                switch (parts.first, parts.count) {
                case ("+s", 2): changes.append(.sessionUp(deviceID: parts[1]))
                case ("-s", 2): changes.append(.sessionDown(deviceID: parts[1]))
                case ("+a", 3): changes.append(.appUp(deviceID: parts[1], bundleID: parts[2]))
                case ("-a", 3): changes.append(.appDown(deviceID: parts[1], bundleID: parts[2]))
                default: return nil
                }
            }
            self = .presence(changes)
            return
        }
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        switch (parts[0], parts.count) {
        case ("reset", 1): self = .reset
        case ("hello", 1): self = .hello
        case ("alive", 1): self = .alive
        case ("bye", 1): self = .bye
        case ("ask", 4): self = .ask(to: parts[1], id: parts[2], question: parts[3])
        case ("answer", 4): self = .answer(to: parts[1], id: parts[2], options: parts[3] == "null" ? nil : parts[3])
        case ("event", 4): self = .event(deviceID: parts[1], name: parts[2], json: parts[3])
        default: return nil
        }
    }

    /// Whether an id can be said in a message (no whitespace: ids are split on it).
    public static func isSayable(_ id: String) -> Bool {
        !id.isEmpty && !id.contains(where: \.isWhitespace)
    }
}
