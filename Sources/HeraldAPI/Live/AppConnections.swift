import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Synchronization

/// The live connections of apps (`GET /v1/app/stream`), each of one app on one device:
/// - `signal` wakes them when something for the app was stored (a person's response): each
///   connection then reads the store. A signal sent while a connection reads is kept, so nothing
///   stored between its read and its wait is missed.
/// - `ask` puts a `willPresent` question to the newest connection of the app that answers them and
///   waits for its `answer`, at most `willPresentTimeout` (the delivery decision waits with it).
public final class AppConnections: Sendable {
    /// A `willPresent` question as a connection writes it (`event: will_present`).
    public struct Question: Sendable {
        public var id: String
        public var question: WillPresentQuestion
    }

    private struct Connection {
        var answersWillPresent: Bool
        var pending = false
        var continuation: CheckedContinuation<Void, Never>?
        var questions: [Question] = []
    }

    private struct Asked {
        var key: String
        var connectionID: UInt64
        var continuation: CheckedContinuation<PresentationOptions?, Never>
    }

    private struct State {
        var connections: [String: [UInt64: Connection]] = [:]
        var asked: [String: Asked] = [:]
    }

    private let state = HeraldMutex(State())
    private let nextID = Atomic<UInt64>(0)
    /// How long a delivery waits for the foreground app's `willPresent` answer (iOS waits for the
    /// app; a server cannot hold a notification for an app that never answers).
    public let willPresentTimeout: Duration

    /// Told when the first connection of an app on a device that answers `willPresent` comes and
    /// its last one goes (nodes sharing a database tell each other).
    let presence: ClusterPresence?

    public init(willPresentTimeout: Duration = .seconds(2), presence: ClusterPresence? = nil) {
        self.willPresentTimeout = willPresentTimeout
        self.presence = presence
    }

    /// The device and app of a key (`key(deviceID:bundleID:)`).
    static func parts(ofKey key: String) -> (deviceID: String, bundleID: String) {
        let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
    }

    /// This node's answering connections, as presence (a node's whole, `ClusterPresence`).
    func answeringPresence() -> [PresenceChange] {
        state.withLock { state in
            state.connections.filter { $0.value.values.contains(where: \.answersWillPresent) }.keys.sorted().map {
                let (deviceID, bundleID) = Self.parts(ofKey: $0)
                return .appUp(deviceID: deviceID, bundleID: bundleID)
            }
        }
    }

    static func key(deviceID: String, bundleID: String) -> String { deviceID + "\u{0}" + bundleID }

    /// A connection's registration; `wait()` returns after the next signal or question (or at once
    /// when one came since the last wait). Call `cancel()` when the connection ends.
    public struct Registration: Sendable {
        let connections: AppConnections
        let key: String
        let id: UInt64

        /// Waits for a signal or a question, or until `timeout` passes (then it returns too: the
        /// caller reads anyway).
        public func wait(timeout: Duration) async {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await withCheckedContinuation { continuation in
                        let resumeNow = connections.state.withLock { state -> Bool in
                            guard var connection = state.connections[key]?[id] else { return true }
                            if connection.pending {
                                connection.pending = false
                                state.connections[key]?[id] = connection
                                return true
                            }
                            connection.continuation = continuation
                            state.connections[key]?[id] = connection
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                }
                group.addTask { try? await Task.sleep(for: timeout) }
                await group.next()
                group.cancelAll()
                // Wake a wait the timeout ended, so its task can finish.
                let continuation = connections.state.withLock { state -> CheckedContinuation<Void, Never>? in
                    let continuation = state.connections[key]?[id]?.continuation
                    state.connections[key]?[id]?.continuation = nil
                    return continuation
                }
                continuation?.resume()
                await group.waitForAll()
            }
        }

        /// The `willPresent` questions put to this connection since the last call, oldest first.
        public func takeQuestions() -> [Question] {
            connections.state.withLock { state in
                guard let questions = state.connections[key]?[id]?.questions, !questions.isEmpty else { return [] }
                state.connections[key]?[id]?.questions = []
                return questions
            }
        }

        /// Ends the registration; the questions it did not answer get no answer at once.
        public func cancel() {
            let (continuation, unanswered) = connections.state.withLock {
                state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<PresentationOptions?, Never>]) in
                let continuation = state.connections[key]?[id]?.continuation
                let answered = state.connections[key]?[id]?.answersWillPresent ?? false
                state.connections[key]?[id] = nil
                if state.connections[key]?.isEmpty == true { state.connections[key] = nil }
                if answered, let presence = connections.presence,
                    !(state.connections[key]?.values.contains(where: \.answersWillPresent) ?? false)
                {
                    let (deviceID, bundleID) = AppConnections.parts(ofKey: key)
                    presence.local(.appDown(deviceID: deviceID, bundleID: bundleID))
                }
                let mine = state.asked.filter { $0.value.connectionID == id }
                for questionID in mine.keys { state.asked[questionID] = nil }
                return (continuation, mine.values.map(\.continuation))
            }
            continuation?.resume()
            for waiting in unanswered { waiting.resume(returning: nil) }
        }
    }

    public func register(deviceID: String, bundleID: String, answersWillPresent: Bool = false) -> Registration {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        state.withLock { state in
            let wasAnswered = state.connections[key]?.values.contains(where: \.answersWillPresent) ?? false
            state.connections[key, default: [:]][id] = Connection(answersWillPresent: answersWillPresent)
            if answersWillPresent, !wasAnswered, NodeMessage.isSayable(deviceID), NodeMessage.isSayable(bundleID) {
                presence?.local(.appUp(deviceID: deviceID, bundleID: bundleID))
            }
        }
        return Registration(connections: self, key: key, id: id)
    }

    /// Wakes every connection of the app on the device.
    public func signal(deviceID: String, bundleID: String) {
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        let continuations = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var connections = state.connections[key] else { return [] }
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, var connection) in connections {
                if let continuation = Self.wake(&connection) { woken.append(continuation) }
                connections[id] = connection
            }
            state.connections[key] = connections
            return woken
        }
        for continuation in continuations { continuation.resume() }
    }

    /// The continuation to resume to wake a connection now, or nil (it is marked to return from its next wait).
    private static func wake(_ connection: inout Connection) -> CheckedContinuation<Void, Never>? {
        guard let continuation = connection.continuation else {
            connection.pending = true
            return nil
        }
        connection.continuation = nil
        return continuation
    }

    // MARK: willPresent

    /// Whether a connection of the app on the device answers `willPresent`.
    public func answersWillPresent(deviceID: String, bundleID: String) -> Bool {
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        return state.withLock { $0.connections[key]?.values.contains(where: \.answersWillPresent) ?? false }
    }

    /// Puts `question` to the newest connection of its app that answers `willPresent` and returns its
    /// answer; nil when there is none, it ends first, or `willPresentTimeout` passes.
    public func ask(_ question: WillPresentQuestion) async -> PresentationOptions? {
        let key = Self.key(deviceID: question.deviceID, bundleID: question.bundleID)
        var generator = SystemRandomNumberGenerator()
        let questionID = APNsID.make(using: &generator).lowercased()
        let timeout = willPresentTimeout
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.expire(questionID)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            let outcome = state.withLock { state -> (asked: Bool, wake: CheckedContinuation<Void, Never>?) in
                guard
                    let connectionID = state.connections[key]?.filter({ $0.value.answersWillPresent }).keys.max(),
                    var connection = state.connections[key]?[connectionID]
                else { return (false, nil) }
                connection.questions.append(Question(id: questionID, question: question))
                let wake = Self.wake(&connection)
                state.connections[key]?[connectionID] = connection
                state.asked[questionID] = Asked(key: key, connectionID: connectionID, continuation: continuation)
                return (true, wake)
            }
            if outcome.asked {
                outcome.wake?.resume()
            } else {
                continuation.resume(returning: nil)
            }
        }
    }

    /// The app's answer to question `id`; false when the question is not the app's, was answered,
    /// or timed out.
    public func answer(id: String, deviceID: String, bundleID: String, options: PresentationOptions) -> Bool {
        let key = Self.key(deviceID: deviceID, bundleID: bundleID)
        let asked = state.withLock { state -> Asked? in
            guard let asked = state.asked[id], asked.key == key else { return nil }
            state.asked[id] = nil
            return asked
        }
        asked?.continuation.resume(returning: options)
        return asked != nil
    }

    private func expire(_ questionID: String) {
        let asked = state.withLock { state -> Asked? in
            defer { state.asked[questionID] = nil }
            return state.asked[questionID]
        }
        asked?.continuation.resume(returning: nil)
    }
}
