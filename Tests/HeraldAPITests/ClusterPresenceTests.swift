import Foundation
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldStore
import Synchronization
import Testing

@testable import HeraldAPI

/// What a node knows of the other nodes' live connections (`ClusterPresence`), and what it tells them
/// of its own: the messages' text, the order of changes, `hello`/`reset`, `bye`, expiry, questions.
@Suite("Cluster presence")
struct ClusterPresenceTests {
    @Test("messages survive their text; ids with whitespace are not said")
    func messagesRoundTrip() {
        let messages: [NodeMessage] = [
            .presence([
                .sessionUp(deviceID: "d1"), .sessionDown(deviceID: "d2"), .appUp(deviceID: "d1", bundleID: "com.a"),
                .appDown(deviceID: "d3", bundleID: "com.b"),
            ]),
            .reset, .hello, .alive, .bye,
            .ask(to: "node-2", id: "q1", question: #"{"a": "b c"}"#), .answer(to: "node-1", id: "q1", options: "18"),
            .answer(to: "node-1", id: "q2", options: nil),
            .event(deviceID: "d1", name: "focus", json: #"{"active": null, "why": "a b"}"#),
        ]
        for message in messages { #expect(NodeMessage(text: message.text) == message) }
        #expect(NodeMessage(text: "presence\n+x d1") == nil)
        #expect(NodeMessage(text: "later") == nil)
        #expect(!NodeMessage.isSayable("a b") && !NodeMessage.isSayable("") && NodeMessage.isSayable("d-1"))
    }

    @Test("another node's sessions and answering apps, until its reset, bye or silence")
    func remotePresence() {
        let presence = ClusterPresence(nodeID: "me") { _ in }
        let apps = LiveHub()
        presence.received(
            .presence([.sessionUp(deviceID: "d1"), .appUp(deviceID: "d1", bundleID: "com.a")]), from: "n2", hub: apps)
        presence.received(.presence([.sessionUp(deviceID: "d1")]), from: "n3", hub: apps)
        #expect(presence.hasRemoteSession(deviceID: "d1") && !presence.hasRemoteSession(deviceID: "d2"))
        #expect(presence.answeringNode(deviceID: "d1", bundleID: "com.a") == "n2")
        // A down of one node leaves the other's session; a reset forgets all that node said.
        presence.received(.presence([.sessionDown(deviceID: "d1")]), from: "n2", hub: apps)
        #expect(presence.hasRemoteSession(deviceID: "d1"))
        presence.received(.reset, from: "n3", hub: apps)
        #expect(!presence.hasRemoteSession(deviceID: "d1"))
        #expect(presence.answeringNode(deviceID: "d1", bundleID: "com.a") == "n2")
        presence.received(.bye, from: "n2", hub: apps)
        #expect(presence.answeringNode(deviceID: "d1", bundleID: "com.a") == nil)
        // A node unheard for `expiry` is gone; one heard lately stays.
        presence.received(.presence([.sessionUp(deviceID: "d4")]), from: "n4", hub: apps)
        presence.expire(now: .now + .seconds(10))
        #expect(presence.hasRemoteSession(deviceID: "d4"))
        presence.expire(now: .now + ClusterPresence.expiry + .seconds(1))
        #expect(!presence.hasRemoteSession(deviceID: "d4"))
        // Rejoining forgets everyone.
        presence.received(.presence([.sessionUp(deviceID: "d5")]), from: "n5", hub: apps)
        presence.rejoined()
        #expect(!presence.hasRemoteSession(deviceID: "d5"))
    }

    @Test("this node's changes go out in order, after hello and its whole presence; a hello asks for the whole again")
    func outgoing() {
        let presence = ClusterPresence(nodeID: "me") { _ in }
        let hub = LiveHub(presence: presence)
        let first = hub.subscribe(deviceID: "d1")
        let second = hub.subscribe(deviceID: "d1")
        let registration = hub.apps.register(deviceID: "d1", bundleID: "com.a", answersWillPresent: true)
        // At first: hello, reset, the whole (taken now), then the changes queued (the same: harmless).
        let start = presence.takeOutgoing { hub.localPresence() }
        #expect(start.first == .hello && start.dropFirst().first == .reset)
        #expect(start.contains(.presence([.sessionUp(deviceID: "d1"), .appUp(deviceID: "d1", bundleID: "com.a")])))
        // One session of two ends: nothing; the last: down. The app's connection ends: down.
        first.finish()
        #expect(presence.takeOutgoing { [] }.isEmpty)
        second.finish()
        registration.cancel()
        #expect(
            presence.takeOutgoing { [] }
                == [.presence([.sessionDown(deviceID: "d1"), .appDown(deviceID: "d1", bundleID: "com.a")])])
        // Another node says hello: the whole again (now empty), after a reset.
        presence.received(.hello, from: "n2", hub: hub)
        #expect(presence.takeOutgoing { hub.localPresence() } == [.reset])
        // Many changes: in messages under the payload limit, in order.
        for index in 0..<500 { _ = hub.subscribe(deviceID: "device-\(index)-\(String(repeating: "x", count: 30))") }
        let messages = presence.takeOutgoing { [] }
        #expect(messages.count > 1 && messages.allSatisfy { $0.text.utf8.count < 7_200 })
        let ups = messages.flatMap { message -> [PresenceChange] in
            if case .presence(let changes) = message { return changes }
            return []
        }
        #expect(ups.count == 500 && ups.first == .sessionUp(deviceID: "device-0-\(String(repeating: "x", count: 30))"))
    }

    @Test("a question for an app on another node goes out as ask, and its answer comes back")
    func askAnother() async {
        let sent = Mutex<[NodeMessage]>([])
        let presence = ClusterPresence(nodeID: "me") { message in sent.withLock { $0.append(message) } }
        let question = WillPresentQuestion(
            deviceID: "d1", bundleID: "com.a", identifier: "n1", isLocal: false, trigger: nil,
            payload: #"{"aps":{"alert":"hi"}}"#, date: Date(timeIntervalSince1970: 1_750_000_000.5))
        let asking = Task { await presence.ask(question, on: "n2", timeout: .seconds(10)) }
        var asked: (id: String, text: String)?
        for _ in 0..<200 where asked == nil {
            try? await Task.sleep(for: .milliseconds(10))
            if case .ask(let to, let id, let text)? = sent.withLock({ $0.first }), to == "n2" { asked = (id, text) }
        }
        let (id, text) = try! #require(asked)
        #expect(WillPresentQuestion(json: text) == question)
        presence.received(.answer(to: "someone-else", id: id, options: "1"), from: "n2", hub: LiveHub())
        presence.received(.answer(to: "me", id: id, options: "24"), from: "n2", hub: LiveHub())
        #expect(await asking.value == [.banner, .list])
        // No answer in time: nil.
        #expect(await presence.ask(question, on: "n2", timeout: .milliseconds(50)) == nil)
    }

    @Test(
        "a named event for a device with a session on another node goes there, and one from there reaches this node's")
    func eventsAcrossNodes() async {
        let presence = ClusterPresence(nodeID: "me") { _ in }
        let hub = LiveHub(presence: presence)
        _ = presence.takeOutgoing { [] }  // (hello, reset)
        presence.received(.presence([.sessionUp(deviceID: "remote")]), from: "n2", hub: hub)
        hub.publishEvent(deviceID: "remote", name: "focus", .object(["active": .null]))
        hub.publishEvent(deviceID: "nowhere", name: "focus", .object(["active": .null]))
        #expect(presence.takeOutgoing { [] } == [.event(deviceID: "remote", name: "focus", json: #"{"active":null}"#)])
        // From another node: this node's session gets it, and it is not sent back.
        let session = hub.subscribe(deviceID: "local")
        _ = presence.takeOutgoing { [] }
        presence.received(.event(deviceID: "local", name: "focus", json: #"{"active":"work"}"#), from: "n2", hub: hub)
        #expect(await session.next() == .named("focus", .object(["active": .string("work")])))
        #expect(presence.takeOutgoing { [] }.isEmpty)
        session.finish()
    }
}
