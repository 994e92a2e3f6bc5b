import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Device routes")
struct DeviceRoutesTests {
    @Test("device routes need the owner's token, in the header or ?access_token=", arguments: StoreKind.allCases)
    func userTokenAuthentication(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        let uri = "/v1/devices/\(device.deviceID)/notifications"
        try await harness.makeApplication().test(.router) { client in
            let missing = try await client.execute(uri: uri, method: .get)
            #expect(missing.status == .unauthorized)
            #expect(missing.errorCode == "unauthorized")
            #expect(try await client.execute(uri: uri, method: .get, headers: bearer("nope")).status == .unauthorized)
            #expect(
                try await client.execute(uri: uri, method: .get, headers: bearer(TestHarness.adminToken)).status
                    == .unauthorized)
            #expect(try await client.execute(uri: uri, method: .get, headers: bearer(token)).status == .ok)
            #expect(try await client.execute(uri: "\(uri)?access_token=\(token)", method: .get).status == .ok)
        }
    }

    @Test("another user's device answers exactly like a device that does not exist", arguments: StoreKind.allCases)
    func otherUsersDeviceIsNotFound(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (_, alicesDevice) = try await harness.makeDevice(userName: "Alice")
        let (bobsToken, _) = try await harness.makeDevice(userName: "Bob", makeApp: false)
        try await harness.push(alicesDevice.deviceID, id: "n1")
        try await harness.makeApplication().test(.router) { client in
            for suffix in ["notifications", "notifications/n1", "stream"] {
                let other = try await client.execute(
                    uri: "/v1/devices/\(alicesDevice.deviceID)/\(suffix)", method: .get, headers: bearer(bobsToken)
                )
                let none = try await client.execute(
                    uri: "/v1/devices/no-such-device/\(suffix)", method: .get, headers: bearer(bobsToken))
                #expect(other.status == .notFound)
                #expect(other.errorCode == "device_not_found")
                #expect(other.text == none.text)
                #expect(other.status == none.status)
            }
            for (method, suffix) in [
                (HTTPRequest.Method.post, "notifications/n1/read"), (.post, "notifications/n1/dismiss"),
                (.delete, "notifications/n1"),
            ] {
                let other = try await client.execute(
                    uri: "/v1/devices/\(alicesDevice.deviceID)/\(suffix)", method: method, headers: bearer(bobsToken))
                #expect(other.errorCode == "device_not_found")
            }
        }
        #expect(try await harness.store.notification(deviceID: alicesDevice.deviceID, id: "n1")?.readAt == nil)
    }

    @Test(
        "the list pages oldest first with since and limit, and its cursor continues the feed",
        arguments: StoreKind.allCases)
    func listPaging(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        for index in 1...5 { try await harness.push(device.deviceID, id: "n\(index)") }
        let base = "/v1/devices/\(device.deviceID)/notifications"
        try await harness.makeApplication().test(.router) { client in
            let first = try await client.execute(uri: "\(base)?limit=2", method: .get, headers: bearer(token))
            #expect(first.json["notifications"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["n1", "n2"])
            #expect(first.json["cursor"] == .string("2"))

            let second = try await client.execute(uri: "\(base)?since=2&limit=2", method: .get, headers: bearer(token))
            #expect(second.json["notifications"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["n3", "n4"])
            #expect(second.json["cursor"] == .string("4"))

            // Other devices' changes move the end of the feed; a short last page's cursor skips them.
            let (_, other) = try await harness.makeDevice(userName: "Bob", makeApp: false)
            try await harness.push(other.deviceID)
            let last = try await client.execute(uri: "\(base)?since=4", method: .get, headers: bearer(token))
            #expect(last.json["notifications"]?.arrayValue?.count == 1)
            #expect(last.json["cursor"] == .string("6"))

            for query in ["limit=0", "limit=501", "limit=x", "since=-1", "since=abc"] {
                let bad = try await client.execute(uri: "\(base)?\(query)", method: .get, headers: bearer(token))
                #expect(bad.status == .badRequest, "\(query)")
                #expect(bad.errorCode == "invalid_parameter")
                let name = String(query.prefix { $0 != "=" })
                #expect(bad.json["error"]?["message"]?.stringValue?.hasPrefix("`\(name)`") == true)
            }
        }
    }

    @Test(
        "a notification's JSON: payload embedded, display fields extracted, ms timestamps",
        arguments: StoreKind.allCases)
    func notificationJSON(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        try await harness.push(device.deviceID, id: "n1", collapseID: "c1")
        try await harness.makeApplication().test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/notifications/n1", method: .get, headers: bearer(token))
            #expect(response.status == .ok)
            let json = response.json
            #expect(json["id"] == .string("n1"))
            #expect(json["cursor"] == .string("1"))
            #expect(json["device_id"] == .string(device.deviceID))
            #expect(json["topic"] == .string(TestHarness.bundleID))
            #expect(json["bundle_id"] == .string(TestHarness.bundleID))
            #expect(json["push_type"] == .string("alert"))
            #expect(json["priority"] == .number(10))
            #expect(json["collapse_id"] == .string("c1"))
            #expect(json["expiration"] == .null)
            #expect(json["received_at"] == .string("2025-06-15T15:06:40.250Z"))
            #expect(json["read_at"] == .null)
            #expect(json["dismissed_at"] == .null)
            #expect(json["payload"]?["custom"]?["k"] == .array([.number(1), .number(2)]))
            #expect(
                json["alert"] == .object(["title": .string("Greeting"), "subtitle": .null, "body": .string("Hello")]))
            #expect(json["badge"] == .number(3))
            #expect(json["sound"] == .string("default"))
            #expect(json["thread_id"] == .string("t1"))
            #expect(json["category"] == .null)
            #expect(json["interruption_level"] == .string("time-sensitive"))
            #expect(json["relevance_score"] == .number(0.5))

            let missing = try await client.execute(
                uri: "/v1/devices/\(device.deviceID)/notifications/nope", method: .get, headers: bearer(token))
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "notification_not_found")
        }
    }

    @Test("read, dismiss and delete change the notification and reach live sessions", arguments: StoreKind.allCases)
    func readDismissDelete(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        let (token, device) = try await harness.makeDevice()
        let id = "0a1b2c3d-0000-4000-8000-000000000001"
        try await harness.push(device.deviceID, id: id)
        let session = harness.hub.subscribe(deviceID: device.deviceID)
        let base = "/v1/devices/\(device.deviceID)/notifications"
        try await harness.makeApplication().test(.router) { client in
            harness.clock.advance(by: 1)
            // apns-ids are stored lowercase; the uppercase spelling finds them too.
            let read = try await client.execute(
                uri: "\(base)/\(id.uppercased())/read", method: .post, headers: bearer(token))
            #expect(read.status == .ok)
            #expect(read.json["read_at"] == .string("2025-06-15T15:06:41.250Z"))
            #expect(read.json["cursor"] == .string("2"))
            #expect(
                await session.next()
                    == .changes([try #require(await harness.store.notification(deviceID: device.deviceID, id: id))]))

            let dismissed = try await client.execute(
                uri: "\(base)/\(id)/dismiss", method: .post, headers: bearer(token))
            #expect(dismissed.json["dismissed_at"]?.stringValue != nil)
            #expect(dismissed.json["cursor"] == .string("3"))
            guard case .changes(let rows) = await session.next() else {
                Issue.record("no change")
                return
            }
            #expect(rows.map(\.seq) == [3])

            let deleted = try await client.execute(uri: "\(base)/\(id)", method: .delete, headers: bearer(token))
            #expect(deleted.status == .noContent)
            #expect(deleted.body.readableBytes == 0)
            guard case .changes(let tombstones) = await session.next() else {
                Issue.record("no change")
                return
            }
            #expect(tombstones.map(\.isRemoved) == [true])

            let gone = try await client.execute(uri: "\(base)/\(id)", method: .get, headers: bearer(token))
            #expect(gone.errorCode == "notification_not_found")
            let again = try await client.execute(uri: "\(base)/\(id)/read", method: .post, headers: bearer(token))
            #expect(again.errorCode == "notification_not_found")
            let list = try await client.execute(uri: base, method: .get, headers: bearer(token))
            #expect(list.json["notifications"] == .array([]))
        }
    }

    @Test("healthz and the OpenAPI document are served", arguments: StoreKind.allCases)
    func serviceRoutes(_ store: StoreKind) async throws {
        let harness = try TestHarness(store)
        try await harness.makeApplication().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
            #expect(health.json == .object(["status": .string("ok")]))
            let document = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(document.status == .ok)
            #expect(document.headers[.contentType]?.hasPrefix("application/yaml") == true)
            #expect(document.text.hasPrefix("openapi: 3.1"))
        }
    }

    @Test("readyz: ready while the database answers; 503 with the reason once it does not or the node stops")
    func readiness() async throws {
        let harness = try TestHarness(.file)
        try await harness.makeApplication().test(.router) { client in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok)
            // The time-driven services are not running in this harness: another node would lead them.
            #expect(
                ready.json
                    == .object([
                        "status": .string("ready"), "database": .string("ok"), "scheduled_services": .string("standby"),
                    ]))
            try await harness.store.close()
            let noDatabase = try await client.execute(uri: "/readyz", method: .get)
            #expect(noDatabase.status == .serviceUnavailable)
            #expect(noDatabase.json["reason"] == .string("database_unavailable"))
            harness.hub.close()
            let stopping = try await client.execute(uri: "/readyz", method: .get)
            #expect(stopping.status == .serviceUnavailable)
            #expect(stopping.json["reason"] == .string("shutting_down"))
            #expect(stopping.json["status"] == .string("unavailable"))
            // Alive all the while.
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }
}
