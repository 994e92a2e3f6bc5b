import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Synchronization

/// On a database several nodes share: which devices have a live session, and which apps in front
/// answer `willPresent`, on the OTHER nodes — so that a push accepted here to a device connected
/// there is decided as one to a device in use (an `apns-expiration: 0` push is then delivered, not
/// dropped), and its app there is asked `willPresent`.
///
/// Each node tells the others its own changes (`NodeMessage.presence`: the first session of a device
/// up, its last one down; the same for the apps' answering connections), in order, through one sender
/// (`PresenceRelay` drains `takeOutgoing`). A node that (re)starts listening knows nobody's presence:
/// it forgets what it had, says `hello`, and every node answers with `reset` and its whole presence;
/// the node's own whole presence goes out too (the others may have dropped it). Each node says
/// `alive` every 10 s; one unheard for `expiry` is taken as gone with its presence (a node killed
/// with -9), and one stopping says `bye`.
///
/// A `willPresent` question for an app on another node goes there as `ask` and comes back as
/// `answer`, waited for at most `willPresentTimeout` + 1 s (the asked node waits its own timeout).
public final class ClusterPresence: Sendable {
    /// How long a node unheard (no message at all) keeps its presence here.
    public static let expiry: Duration = .seconds(30)
    /// How often this node says it is alive.
    public static let heartbeat: Duration = .seconds(10)

    private struct Node {
        var devices: Set<String> = []
        var apps: Set<String> = []
        var lastHeard: ContinuousClock.Instant
    }

    private enum Outgoing {
        case change(PresenceChange)
        case message(NodeMessage)
    }

    private struct State {
        var nodes: [String: Node] = [:]
        /// Device → how many other nodes have a session of it.
        var devices: [String: Int] = [:]
        /// Device and app (`AppConnections.key`) → the other nodes with an answering connection.
        var apps: [String: [String]] = [:]
        /// This node's changes and events not sent yet, in order.
        var outgoing: [Outgoing] = []
        /// Whether this node's whole presence must go out (after `hello`, a reconnection, a failed send).
        var needsWhole = true
        /// Whether to say `hello` (this node knows nobody's presence).
        var needsHello = true
        var waiters: [String: CheckedContinuation<PresentationOptions?, Never>] = [:]
    }

    /// This node's id (`SharedDatabaseStore.nodeID`).
    public let nodeID: String
    private let state = HeraldMutex(State())
    private let send: @Sendable (NodeMessage) async throws -> Void
    /// Wakes the sender: something to send.
    public let outgoingSignal = WakeSignal()

    public init(nodeID: String, send: @escaping @Sendable (NodeMessage) async throws -> Void) {
        self.nodeID = nodeID
        self.send = send
    }

    // MARK: What the other nodes have

    /// Whether another node has a live session of the device.
    public func hasRemoteSession(deviceID: String) -> Bool {
        state.withLock { ($0.devices[deviceID] ?? 0) > 0 }
    }

    /// The node with an app connection of the device that answers `willPresent` (the latest heard).
    public func answeringNode(deviceID: String, bundleID: String) -> String? {
        state.withLock { $0.apps[AppConnections.key(deviceID: deviceID, bundleID: bundleID)]?.last }
    }

    // MARK: What this node has

    /// A change of this node's presence (called in the order the changes happen, under the lock of
    /// whoever made them).
    func local(_ change: PresenceChange) {
        state.withLock { $0.outgoing.append(.change(change)) }
        outgoingSignal.signal()
    }

    /// A named event for a device's sessions, to go to the other nodes (those with a session of the
    /// device take it). Dropped when too big for a message (over ~7,800 bytes of JSON).
    func forward(deviceID: String, name: String, json: String) {
        let message = NodeMessage.event(deviceID: deviceID, name: name, json: json)
        guard message.text.utf8.count < 7_800, NodeMessage.isSayable(deviceID), NodeMessage.isSayable(name) else {
            return
        }
        state.withLock { $0.outgoing.append(.message(message)) }
        outgoingSignal.signal()
    }

    /// What the sender sends next: `hello` and this node's whole presence when due (`whole` is asked
    /// for it then), and the changes queued, each list in messages of at most ~7,000 bytes.
    public func takeOutgoing(whole: () -> [PresenceChange]) -> [NodeMessage] {
        let (hello, wantsWhole, changes) = state.withLock { state in
            defer {
                state.needsHello = false
                state.needsWhole = false
                state.outgoing = []
            }
            return (state.needsHello, state.needsWhole, state.outgoing)
        }
        var messages: [NodeMessage] = hello ? [.hello] : []
        if wantsWhole { messages += [.reset] + Self.chunked(whole()) }
        // In order: runs of changes in chunks, events between them as they came.
        var run: [PresenceChange] = []
        for item in changes {
            switch item {
            case .change(let change): run.append(change)
            case .message(let message):
                messages += Self.chunked(run) + [message]
                run = []
            }
        }
        return messages + Self.chunked(run)
    }

    /// A send failed: the others may have missed some of this node's changes — send the whole again.
    public func sendFailed() {
        state.withLock { $0.needsWhole = true }
    }

    private static func chunked(_ changes: [PresenceChange]) -> [NodeMessage] {
        var messages: [NodeMessage] = []
        var chunk: [PresenceChange] = []
        var bytes = 0
        for change in changes {
            let size = NodeMessage.presence([change]).text.utf8.count
            if bytes + size > 7_000, !chunk.isEmpty {
                messages.append(.presence(chunk))
                chunk = []
                bytes = 0
            }
            chunk.append(change)
            bytes += size
        }
        if !chunk.isEmpty { messages.append(.presence(chunk)) }
        return messages
    }

    // MARK: Messages

    /// This node (re)started listening: it knows nobody's presence now, and nobody may know its own.
    public func rejoined() {
        state.withLock { state in
            state.nodes = [:]
            state.devices = [:]
            state.apps = [:]
            state.needsHello = true
            state.needsWhole = true
        }
        outgoingSignal.signal()
    }

    /// Another node's message, for this node's `hub` (its app connections answer the questions put
    /// to them; its sessions get the events).
    public func received(_ message: NodeMessage, from node: String, hub: LiveHub) {
        let apps = hub.apps
        let now = ContinuousClock.now
        switch message {
        case .presence(let changes):
            state.withLock { state in
                var entry = state.nodes[node] ?? Node(lastHeard: now)
                entry.lastHeard = now
                for change in changes { Self.apply(change, node: node, to: &entry, in: &state) }
                state.nodes[node] = entry
            }
        case .reset, .bye:
            state.withLock { state in
                Self.forget(node, in: &state)
                if case .reset = message { state.nodes[node] = Node(lastHeard: now) }
            }
        case .hello:
            state.withLock { state in
                state.nodes[node, default: Node(lastHeard: now)].lastHeard = now
                state.needsWhole = true
            }
            outgoingSignal.signal()
        case .alive:
            state.withLock { $0.nodes[node, default: Node(lastHeard: now)].lastHeard = now }
        case .ask(let to, let id, let text):
            guard to == nodeID, let question = WillPresentQuestion(json: text) else { return }
            Task {
                let options = await apps.ask(question)
                try? await send(.answer(to: node, id: id, options: options.map { String($0.rawValue) }))
            }
        case .event(let deviceID, let name, let json):
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return }
            hub.publishEvent(deviceID: deviceID, name: name, value, fromAnotherNode: true)
        case .answer(let to, let id, let options):
            guard to == nodeID else { return }
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: options.flatMap(UInt.init).map(PresentationOptions.init(rawValue:)))
        }
    }

    /// Forgets the nodes unheard for `expiry` (killed, or cut off), with their presence.
    public func expire(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            for (node, entry) in state.nodes where now - entry.lastHeard > Self.expiry {
                Self.forget(node, in: &state)
            }
        }
    }

    private static func apply(_ change: PresenceChange, node: String, to entry: inout Node, in state: inout State) {
        switch change {
        case .sessionUp(let device):
            if entry.devices.insert(device).inserted { state.devices[device, default: 0] += 1 }
        case .sessionDown(let device):
            if entry.devices.remove(device) != nil { decrement(device, in: &state) }
        case .appUp(let device, let bundle):
            let key = AppConnections.key(deviceID: device, bundleID: bundle)
            if entry.apps.insert(key).inserted { state.apps[key, default: []].append(node) }
        case .appDown(let device, let bundle):
            let key = AppConnections.key(deviceID: device, bundleID: bundle)
            if entry.apps.remove(key) != nil { removeApp(key, node: node, in: &state) }
        }
    }

    private static func forget(_ node: String, in state: inout State) {
        guard let entry = state.nodes.removeValue(forKey: node) else { return }
        for device in entry.devices { decrement(device, in: &state) }
        for key in entry.apps { removeApp(key, node: node, in: &state) }
    }

    private static func decrement(_ device: String, in state: inout State) {
        let count = (state.devices[device] ?? 1) - 1
        state.devices[device] = count > 0 ? count : nil
    }

    private static func removeApp(_ key: String, node: String, in state: inout State) {
        state.apps[key]?.removeAll { $0 == node }
        if state.apps[key]?.isEmpty == true { state.apps[key] = nil }
    }

    // MARK: willPresent on another node

    /// Puts `question` to the app's connection on `node`; nil when no answer comes within `timeout`.
    func ask(_ question: WillPresentQuestion, on node: String, timeout: Duration) async -> PresentationOptions? {
        var generator = SystemRandomNumberGenerator()
        let id = APNsID.make(using: &generator).lowercased()
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            state.withLock { $0.waiters[id] = continuation }
            Task {
                do {
                    try await send(.ask(to: node, id: id, question: question.json))
                } catch {
                    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
                }
            }
        }
    }
}

extension WillPresentQuestion {
    /// The question as JSON, for another node.
    var json: String {
        var object: [String: Any] = [
            "device_id": deviceID, "bundle_id": bundleID, "identifier": identifier, "is_local": isLocal,
            "payload": payload, "date_ms": Int64((date.timeIntervalSince1970 * 1000).rounded()),
        ]
        if let trigger { object["trigger"] = trigger }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let deviceID = object["device_id"] as? String, let bundleID = object["bundle_id"] as? String,
            let identifier = object["identifier"] as? String, let isLocal = object["is_local"] as? Bool,
            let payload = object["payload"] as? String, let milliseconds = object["date_ms"] as? Int64
        else { return nil }
        self.init(
            deviceID: deviceID, bundleID: bundleID, identifier: identifier, isLocal: isLocal,
            trigger: object["trigger"] as? String, payload: payload,
            date: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
