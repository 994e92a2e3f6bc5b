import Foundation
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Apps' notification service extensions through a real Herald, with the sessions' extension code
/// (Examples/MediaExtension, built as `herald-example-extension`) running as real processes that
/// Herald launches: the content they make is what the device gets, the decision says what they did,
/// and what goes wrong (too slow, a crash, a hang, too much memory) shows the push as sent.
@Suite("Notification service extensions", .serialized)
struct ServiceExtensionTests {
    /// The example extension, built next to this test bundle.
    static var exampleExtension: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("herald-example-extension").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return FileManager.default.currentDirectoryPath + "/.build/debug/herald-example-extension"
    }

    @Test(
        "a mutable-content push goes through the extension: its content is stored and the decision says how long it took"
    )
    func modifies() async throws {
        let herald = try await PolicyHerald.start()
        let (status, registered) = try await Self.register(
            herald, ["executable": Self.exampleExtension, "timeout_seconds": 10])
        #expect(status == 200)
        #expect(registered["kind"] as? String == "process" && registered["processes"] as? Int == 2)
        #expect(registered["memory_limit_mb"] as? Int == 128 && registered["timeout_seconds"] as? Double == 10)
        let client = try herald.apnsClient()

        let id = try await Self.push(
            herald,
            #"{"aps":{"alert":{"title":"Hello","body":"World"},"mutable-content":1,"thread-id":"t"},"k":1}"#,
            client: client)
        let row = try await Self.delivered(herald, id)
        #expect(Self.alert(row) == .object(["title": .string("Hello [modified]"), "body": .string("World")]))
        let payload = try JSONParser.parse(Array(row.payload.utf8))
        #expect(json(payload, "aps", "mutable-content") == .number(1) && json(payload, "k") == .number(1))
        #expect(json(payload, "aps", "thread-id") == .string("t"))
        let ref = try #require(row.decision?.context.serviceExtension)
        #expect(ref.outcome == .modified && ref.budgetMilliseconds == 10_000 && ref.error == nil)
        #expect(row.decision?.decision.reasons.contains(ServerReason.extensionModified) == true)
        let explained = try await herald.application.explain(deviceID: herald.demo.deviceID, id: id)
        let sentences = jsonItems(json(explained, "reasons")).compactMap { json($0, "sentence")?.stringValue }
        #expect(sentences.contains { $0.hasPrefix("Changed by Demo's notification service extension in ") })
        #expect(json(explained, "decision", "context", "service_extension", "outcome") == .string("modified"))

        // An extension that gives the content back: unchanged; a loc key it left alone stays.
        let echoed = try await Self.push(
            herald, #"{"aps":{"alert":{"loc-key":"GREETING","body":"Hi"},"mutable-content":1},"test":"echo"}"#,
            client: client)
        let echo = try await Self.delivered(herald, echoed)
        #expect(echo.decision?.context.serviceExtension?.outcome == .unchanged)
        #expect(json(Self.alert(echo), "loc-key") == .string("GREETING"))

        // Without mutable-content, or without an alert, the extension is not asked.
        let plain = try await Self.push(herald, #"{"aps":{"alert":{"title":"Plain"}}}"#, client: client)
        let plainRow = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: plain))
        #expect(plainRow.decision?.context.serviceExtension == nil)
        let badgeOnly = try await Self.push(herald, #"{"aps":{"badge":3,"mutable-content":1}}"#, client: client)
        #expect(try await herald.store.notification(deviceID: herald.demo.deviceID, id: badgeOnly) != nil)

        // Removed: the next mutable push is stored as sent at once.
        #expect(try await Self.admin(herald, "DELETE").0 == 204)
        #expect(try await Self.admin(herald, "GET").0 == 404)
        try await Task.sleep(for: .milliseconds(200))
        let after = try await Self.push(
            herald, #"{"aps":{"alert":{"title":"Later"},"mutable-content":1}}"#, client: client)
        let afterRow = try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: after))
        #expect(json(Self.alert(afterRow), "title") == .string("Later"))
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("WWDC17 708: the downloaded video is attached, served to the device's owner, and freed with the notification")
    func attachment() async throws {
        let peer = try await Peer()
        let herald = try await PolicyHerald.start()
        #expect(try await Self.register(herald, ["executable": Self.exampleExtension, "timeout_seconds": 10]).0 == 200)
        let client = try herald.apnsClient()
        let id = try await Self.push(
            herald,
            #"""
            {"aps":{"alert":{"title":"New Video","body":"John Appleseed posted a new video"},"mutable-content":1},
             "type":"video","video-url":"http://127.0.0.1:\#(peer.port)/video.mp4"}
            """#, client: client)
        let row = try await Self.delivered(herald, id)
        #expect(json(Self.alert(row), "title") == .string("New Video"))
        #expect(row.decision?.context.serviceExtension?.outcome == .modified)
        #expect(row.decision?.context.serviceExtension?.error == nil)
        let attachment = try #require(row.attachments.first)
        #expect(row.attachments.count == 1 && attachment.identifier == "video" && attachment.type == "public.mpeg-4")

        var request = URLRequest(
            url: URL(
                string:
                    "\(herald.runtime.apiURL)/v1/devices/\(herald.demo.deviceID)/notifications/\(id)/attachments/\(attachment.id)"
            )!)
        request.setValue("Bearer \(herald.demo.userToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && data == Data(Self.video))

        _ = try await herald.store.remove(deviceID: herald.demo.deviceID, id: id, at: Date())
        // Freed by this sweep, or by the sweeper's own round (every 10 s) if one came in between.
        let swept = try await herald.application.attachments.sweep()
        #expect(swept == [attachment.id] || swept.isEmpty)
        #expect(try await herald.store.attachments(ids: [attachment.id]).isEmpty)
        try await client.shutdown()
        try await herald.stop()
        await peer.stop()
    }

    @Test("WWDC17 708: a download slower than the extension's time shows the best attempt, \"Incoming video!\"")
    func expiryFallback() async throws {
        let peer = try await Peer()
        let herald = try await PolicyHerald.start()
        #expect(try await Self.register(herald, ["executable": Self.exampleExtension, "timeout_seconds": 1]).0 == 200)
        let client = try herald.apnsClient()
        let id = try await Self.push(
            herald,
            #"""
            {"aps":{"alert":{"title":"New Video","body":"John Appleseed posted a new video"},"mutable-content":1},
             "type":"video","video-url":"http://127.0.0.1:\#(peer.port)/slow.mp4","video-location":"Skate Park, SF",
             "video-user":"John Appleseed"}
            """#, client: client)
        let row = try await Self.delivered(herald, id)
        #expect(json(Self.alert(row), "title") == .string("Incoming video!"))
        #expect(json(Self.alert(row), "body") == .string("John Appleseed posted a new video"))
        let ref = try #require(row.decision?.context.serviceExtension)
        #expect(ref.outcome == .bestAttempt && ref.durationMilliseconds >= 1000)
        try await client.shutdown()
        try await herald.stop()
        await peer.stop()
    }

    @Test(
        "WWDC21 10091: the extension's message intent shows the sender, group and avatar, is donated, and breaks through a Focus that allows the sender"
    )
    func communication() async throws {
        let peer = try await Peer()
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let work = FocusMode(
            id: "work", name: "Work", kind: .work,
            allowedPeople: [PersonHandle("ana@example.com", kind: .emailAddress)],
            manual: .on(since: herald.clock.now.addingTimeInterval(-60), until: nil))
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)
        #expect(try await Self.register(herald, ["executable": Self.exampleExtension]).0 == 200)
        let client = try herald.apnsClient()

        let message = try await Self.push(
            herald,
            #"""
            {"aps":{"alert":{"body":"On my way"},"mutable-content":1},"type":"message",
             "sender":{"handle":"Ana@Example.com","name":"Ana","avatar":"http://127.0.0.1:\#(peer.port)/ana.png"},
             "group":"Lunch crew","conversation":"lunch-1"}
            """#, client: client)
        let plain = try await Self.push(herald, #"{"aps":{"alert":{"title":"Sale","body":"50% off"}}}"#, client: client)
        let row = try await Self.delivered(herald, message)
        #expect(row.disposition == .alerted)
        #expect(row.decision?.decision.reasons.contains(.focusAllowedPerson) == true)
        #expect(row.decision?.display == NotificationDisplay(title: "Ana", subtitle: "Lunch crew", body: "On my way"))
        #expect(row.decision?.context.sender?.name == "Ana")
        // The avatar the extension downloaded is kept as Herald's file, shown as the avatar (not as
        // an attachment) and served to the device's owner.
        let communication = json(try JSONParser.parse(Array(row.payload.utf8)), "communication")
        #expect(json(communication, "sender", "avatar") == nil)
        let avatar = try #require(row.attachments.first)
        #expect(row.attachments.count == 1 && avatar.isAvatar && avatar.type == "public.png")
        let served = try await ServiceExtensionWebhookTests.fetch(
            herald, "/v1/devices/\(herald.demo.deviceID)/notifications/\(message)/attachments/\(avatar.id)")
        #expect(served.0 == 200 && served.1 == Data(Self.avatar))
        #expect(
            try #require(try await herald.store.notification(deviceID: herald.demo.deviceID, id: plain)).disposition
                == .heldForFocus)

        // The extension donated the incoming interaction, as the app on the device.
        var donations: [InteractionRecord] = []
        for _ in 0..<500 where donations.isEmpty {
            donations = try await herald.store.interactions(userID: userID, bundleID: herald.demo.topic)
            if donations.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(donations.map(\.direction) == [.incoming] && donations.map(\.kind) == [.message])
        try await client.shutdown()
        try await herald.stop()
        await peer.stop()
    }

    @Test("what goes wrong shows the push as sent: a crash, a hang past its time, too much memory")
    func failures() async throws {
        let herald = try await PolicyHerald.start()
        #expect(
            try await Self.register(
                herald, ["executable": Self.exampleExtension, "timeout_seconds": 1, "memory_limit_mb": 64]
            ).0 == 200)
        let client = try herald.apnsClient()
        func push(_ type: String) async throws -> StoredNotification {
            let id = try await Self.push(
                herald, #"{"aps":{"alert":{"title":"As sent"},"mutable-content":1},"test":"\#(type)"}"#,
                client: client)
            return try await Self.delivered(herald, id)
        }
        let crashed = try await push("crash")
        #expect(json(Self.alert(crashed), "title") == .string("As sent"))
        #expect(crashed.decision?.context.serviceExtension?.outcome == .failed)
        #expect(crashed.decision?.context.serviceExtension?.error?.contains("signal") == true)

        let hung = try await push("hang")
        #expect(json(Self.alert(hung), "title") == .string("As sent"))
        let hangRef = try #require(hung.decision?.context.serviceExtension)
        #expect(hangRef.outcome == .timedOut && hangRef.durationMilliseconds >= 3000)

        let greedy = try await push("memory")
        #expect(json(Self.alert(greedy), "title") == .string("As sent"))
        #expect(greedy.decision?.context.serviceExtension?.outcome == .failed)
        #expect(greedy.decision?.context.serviceExtension?.error?.contains("over its limit of 64 MiB") == true)

        // And the extension still works for the next push (a new process).
        let fine = try await push("fine")
        #expect(json(Self.alert(fine), "title") == .string("As sent [modified]"))
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("many pushes at once: at most `processes` extension processes run, and every push is delivered")
    func boundedPool() async throws {
        let herald = try await PolicyHerald.start()
        #expect(try await Self.register(herald, ["executable": Self.exampleExtension, "processes": 2]).0 == 200)
        let client = try herald.apnsClient()
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await Self.push(
                        herald, #"{"aps":{"alert":{"title":"n\#(index)"},"mutable-content":1}}"#, client: client)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for id in ids {
            let row = try await Self.delivered(herald, id)
            #expect(json(Self.alert(row), "title")?.stringValue?.hasSuffix(" [modified]") == true)
        }
        let processes = await herald.application.extensions.processes(bundleID: herald.demo.topic)
        #expect(processes.started <= 2 && processes.running <= 2)
        try await client.shutdown()
        try await herald.stop()
    }

    @Test("durable first: a push accepted before a stop runs through the extension at the next start")
    func recovery() async throws {
        var herald = try await PolicyHerald.start()
        #expect(try await Self.register(herald, ["executable": Self.exampleExtension]).0 == 200)
        let demo = herald.demo
        try await herald.stop(removingData: false)
        // As if Herald crashed between the 200 and the extension's answer: the job is all there is,
        // still claimed by the crashed run for ten minutes — on a database of its own, the next start
        // runs it anyway (no other node can be running it).
        let store = try SQLiteStore(path: herald.directory.appendingPathComponent("herald.sqlite").path)
        let job = ExtensionJobRecord(
            id: "9f0c1f7e-0000-4000-8000-000000000001", deviceID: demo.deviceID, bundleID: demo.topic,
            token: demo.deviceToken, topic: demo.topic, pushType: "alert", priority: 10, expiration: nil,
            collapseID: nil, payload: #"{"aps":{"alert":{"title":"Kept"},"mutable-content":1}}"#,
            receivedAt: Date(), claimedUntil: Date().addingTimeInterval(600))
        try await store.addExtensionJob(job)
        try await store.close()

        herald = try await PolicyHerald.start(directory: herald.directory)
        let row = try await Self.delivered(herald, job.id)
        #expect(json(Self.alert(row), "title") == .string("Kept [modified]"))
        for _ in 0..<100 where try await !herald.store.extensionJobs(limit: 10).isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await herald.store.extensionJobs(limit: 10).isEmpty)
        try await herald.stop()
    }

    @Test("registrations are checked: an absolute executable or an http(s) url, limits in range")
    func validation() async throws {
        let herald = try await PolicyHerald.start()
        let refused: [([String: Any], String)] = [
            ([:], "executable"),
            (["executable": "herald-example-extension"], "absolute"),
            (["executable": "/nonexistent/extension"], "not an executable"),
            (["executable": Self.exampleExtension, "url": "https://example.com"], "choose one"),
            (["url": "ftp://example.com/x"], "http"),
            (["executable": Self.exampleExtension, "timeout_seconds": 0], "timeout_seconds"),
            (["executable": Self.exampleExtension, "processes": 0], "processes"),
            (["executable": Self.exampleExtension, "memory_limit_mb": 1.5], "memory_limit_mb"),
            (["executable": Self.exampleExtension, "flavour": 1], "flavour"),
        ]
        for (body, words) in refused {
            let (status, answer) = try await Self.register(herald, body)
            let message = (answer["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(status == 400, "\(body)")
            #expect(message.contains(words), "\(body): \(message)")
        }
        #expect(try await Self.admin(herald, "GET").0 == 404)
        try await herald.stop()
    }
}
