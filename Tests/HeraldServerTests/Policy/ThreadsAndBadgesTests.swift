import Foundation
import HeraldAPI
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldPolicy
import HeraldServer
import HeraldStore
import Testing

@Suite("Threads and badges of pushes over APNs (in-process server, test clock)")
struct ThreadsAndBadgesTests {
    static func badges(_ api: HeraldAPIClient, _ deviceID: String) async throws -> (
        total: Double?, apps: [String: Double]
    ) {
        let body = try JSONDecoder().decode(JSONValue.self, from: try await api.badges(deviceID: deviceID))
        var apps: [String: Double] = [:]
        for app in jsonItems(json(body, "apps")) {
            if let id = json(app, "bundle_id")?.stringValue, case .number(let badge)? = json(app, "badge") {
                apps[id] = badge
            }
        }
        if case .number(let total)? = json(body, "total") { return (total, apps) }
        return (nil, apps)
    }

    @Test(
        "pushes in a thread make one group with the category's summary line; badges follow the latest applied push, a held one's when it is released (quietly)"
    )
    func threadsAndBadges() async throws {
        let herald = try await PolicyHerald.start()
        let userID = try await herald.userID()
        let deviceID = herald.demo.deviceID
        let app = herald.demo.topic
        let api = try HeraldAPIClient(baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
        let client = try herald.apnsClient()
        try await herald.store.upsertCategory(
            bundleID: app, identifier: "MESSAGE",
            json: #"{"identifier":"MESSAGE","category_summary_format":"%u more messages from %@"}"#
        )
        await herald.application.policy.appResourcesChanged(bundleID: app)

        // Given three messages in one thread and one push without a thread, the last with badge 5
        var ids: [String] = []
        for (index, sender) in ["Ana", "Bo", "Ana"].enumerated() {
            let row = try await herald.push(
                #"{"alert":{"body":"m\#(index)"},"thread-id":"chat-1","category":"MESSAGE","summary-arg":"\#(sender)","badge":\#(index + 1)}"#,
                client: client
            )
            ids.append(row.id)
            herald.clock.advance(by: 1)
        }
        let lone = try await herald.push(#"{"alert":{"body":"lone"},"badge":5}"#, client: client)
        herald.clock.advance(by: 1)

        // Then the threads view has the lone push first, then the thread with its summary line
        let threads = try JSONDecoder().decode(JSONValue.self, from: try await api.threads(deviceID: deviceID))
        let groups = jsonItems(json(threads, "threads"))
        #expect(groups.count == 2)
        #expect(json(groups.first, "notification", "id")?.stringValue == lone.id)
        #expect(json(groups.first, "thread_id") == .null)
        let thread = groups.last
        #expect(json(thread, "thread_id")?.stringValue == "chat-1")
        #expect(json(thread, "notification", "id")?.stringValue == ids[2])
        #expect(jsonItems(json(thread, "other_ids")).compactMap(\.stringValue) == [ids[1], ids[0]])
        #expect(json(thread, "summary")?.stringValue == "2 more messages from Bo and Ana")
        #expect(try await Self.badges(api, deviceID) == (5, [app: 5]))

        // When the Work Focus holds a push with badge 9, the badge stays and the view leaves it out
        let start = herald.clock.now
        let work = FocusMode(
            id: "work", name: "Work", kind: .work,
            manual: .on(since: start.addingTimeInterval(-60), until: start.addingTimeInterval(600)))
        try await herald.store.upsertFocusMode(work, userID: userID)
        try await herald.userStateChanged(userID)
        let held = try await herald.push(#"{"alert":{"body":"later"},"badge":9}"#, client: client)
        #expect(held.disposition == .heldForFocus)
        #expect(try await Self.badges(api, deviceID) == (5, [app: 5]))
        let duringFocus = try JSONDecoder().decode(JSONValue.self, from: try await api.threads(deviceID: deviceID))
        #expect(
            !jsonItems(json(duringFocus, "threads")).contains { json($0, "notification", "id")?.stringValue == held.id }
        )

        // When the Focus ends, the released push (quiet: listed, no banner, no sound) applies its badge and leads the view
        herald.clock.advance(to: start.addingTimeInterval(601))
        let released = try await herald.heldReevaluated(userID)
        #expect(released.first { $0.id == held.id }?.disposition == .listedSilently)
        #expect(try await Self.badges(api, deviceID) == (9, [app: 9]))
        let afterFocus = try JSONDecoder().decode(JSONValue.self, from: try await api.threads(deviceID: deviceID))
        let newest = jsonItems(json(afterFocus, "threads")).first
        #expect(json(newest, "notification", "id")?.stringValue == held.id)
        #expect(json(newest, "summary")?.stringValue == "1 more notification")

        // When a push clears the badge, and notifications are dismissed, the badge is 0
        _ = try await herald.push(#"{"alert":{"body":"read"},"badge":0}"#, client: client)
        _ = try await api.dismiss(deviceID: deviceID, id: ids[2])
        #expect(try await Self.badges(api, deviceID) == (0, [:]))
        try await client.shutdown()
        try await api.shutdown()
        try await herald.stop()
    }
}
