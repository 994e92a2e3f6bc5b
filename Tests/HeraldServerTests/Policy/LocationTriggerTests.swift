#if os(Linux)
    import CoreLocation
    import Foundation
    import HeraldClient
    import HeraldCore
    import HeraldServer
    import HeraldStore
    import Testing
    import UserNotifications

    /// Location triggers through a real Herald: the device reports where it is (`PUT
    /// /v1/devices/{id}/state` `location`), and each pending `UNLocationNotificationTrigger` whose
    /// circle it entered or left, as the region asks, fires — once, or at every crossing when it repeats.
    @Suite("Location triggers on a real Herald", .serialized)
    struct LocationTriggerTests {
        static let gate = CLLocationCoordinate2D(latitude: 52.516275, longitude: 13.377704)
        static let inside: JSONValue = .object(["latitude": .number(52.51650), "longitude": .number(13.37820)])
        static let outside: JSONValue = .object(["latitude": .number(52.518620), "longitude": .number(13.376198)])

        static func request(_ identifier: String, entry: Bool, exit: Bool, repeats: Bool) -> UNNotificationRequest {
            let region = CLCircularRegion(center: gate, radius: 100, identifier: "gate")
            region.notifyOnEntry = entry
            region.notifyOnExit = exit
            return UNNotificationRequest(
                identifier: identifier, content: LocalNotificationTests.content(identifier),
                trigger: UNLocationNotificationTrigger(region: region, repeats: repeats))
        }

        @Test("entry fires once, a repeating exit fires at every exit; the app sees its location triggers")
        func crossingsFire() async throws {
            let herald = try await PolicyHerald.start()
            let center = try await LocalNotificationTests.center(herald)
            let person = try HeraldAPIClient(
                baseURL: URL(string: herald.runtime.apiURL)!, bearerToken: herald.demo.userToken)
            func move(_ location: JSONValue) async throws {
                _ = try await person.setDeviceState(deviceID: herald.demo.deviceID, fields: ["location": location])
            }
            func delivered() async throws -> [String] {
                try await center.deliveredNotifications().map(\.request.identifier).sorted()
            }

            try await move(Self.outside)
            try await center.add(Self.request("arrive", entry: true, exit: false, repeats: false))
            try await center.add(Self.request("leave", entry: false, exit: true, repeats: true))
            let pending = try await center.pendingNotificationRequests()
            #expect(pending.map(\.identifier) == ["arrive", "leave"])
            let trigger = try #require(pending.first?.trigger as? UNLocationNotificationTrigger)
            let region = try #require(trigger.region as? CLCircularRegion)
            #expect(region.center == Self.gate && region.radius == 100 && region.identifier == "gate")
            #expect(region.notifyOnEntry && !region.notifyOnExit && !trigger.repeats)

            try await move(Self.outside)  // no crossing
            #expect(try await delivered().isEmpty)
            try await move(Self.inside)  // entry: "arrive" fires and is done
            #expect(try await delivered() == ["arrive"])
            let arrived = try #require(try await center.deliveredNotifications().first)
            #expect(arrived.request.trigger is UNLocationNotificationTrigger)
            #expect(try await center.pendingNotificationRequests().map(\.identifier) == ["leave"])
            try await move(Self.outside)  // exit: "leave" fires and stays pending
            #expect(try await delivered() == ["arrive", "leave"])
            #expect(try await center.pendingNotificationRequests().map(\.identifier) == ["leave"])
            try await center.removeDeliveredNotifications(withIdentifiers: ["leave"])
            try await move(Self.inside)  // entry: nothing pending fires on entry
            #expect(try await delivered() == ["arrive"])
            try await move(Self.outside)  // exit again: "leave" again
            #expect(try await delivered() == ["arrive", "leave"])

            // A device that reports where it is keeps it in its state.
            let state =
                try JSONSerialization.jsonObject(
                    with: try await person.deviceState(deviceID: herald.demo.deviceID)) as? [String: Any]
            let location = try #require(state?["location"] as? [String: Any])
            #expect(location["latitude"] as? Double == 52.518620)
            try await person.shutdown()
            try await herald.stop()
        }
    }
#endif
