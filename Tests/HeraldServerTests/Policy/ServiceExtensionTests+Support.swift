import Foundation
import HeraldClient
import HeraldCore
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

// What the service extension suites share: a peer HTTP server (a slow and a quick video, a webhook
// extension), the admin call that registers an extension, a push, and waiting for its notification.
extension ServiceExtensionTests {
    /// A small HTTP server: a video that never finishes downloading, and a webhook extension.
    final class Peer: Sendable {
        final class Hooks: Sendable {
            let bodies = Mutex<[String]>([])
            /// Each request's headers, lowercased names.
            let headers = Mutex<[[String: String]]>([])
        }

        let port: Int
        let hooks = Hooks()
        private let task: Task<Void, any Error>

        init() async throws {
            let hooks = self.hooks
            let router = Router()
            router.get("/slow.mp4") { _, _ -> Response in
                try await Task.sleep(for: .seconds(30))
                return Response(status: .ok)
            }
            router.get("/ana.png") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: ServiceExtensionTests.avatar)))
            }
            router.get("/video.mp4") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: ServiceExtensionTests.video)))
            }
            router.post("/extension") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                let text = String(buffer: body)
                hooks.bodies.withLock { $0.append(text) }
                let headers = Dictionary(
                    request.headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { first, _ in first })
                hooks.headers.withLock { $0.append(headers) }
                var payload = try JSONParser.parse(Array(text.utf8)).objectValue?["payload"]?.objectValue ?? [:]
                var aps = payload["aps"]?.objectValue ?? [:]
                aps["alert"] = .object(["title": .string("From the webhook"), "body": .string("Changed")])
                payload["aps"] = .object(aps)
                var answer: [String: JSONValue] = ["payload": .object(payload)]
                // `"attach"` in the push: the video attached, given as base64 (or what it names).
                switch payload["attach"] {
                case .string("video")?:
                    answer["attachments"] = .array([
                        .object([
                            "identifier": .string("clip"),
                            "data": .string(Data(ServiceExtensionTests.video).base64EncodedString()),
                            "thumbnail_hidden": .bool(true),
                        ])
                    ])
                case .string("text")?:
                    answer["attachments"] = .array([
                        .object(["data": .string(Data("plain text".utf8).base64EncodedString())])
                    ])
                case .string("not-base64")?:
                    answer["attachments"] = .array([.object(["data": .string("%%%")])])
                default: break
                }
                let data = try JSONEncoder().encode(JSONValue.object(answer))
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            }
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            var logger = Logger(label: "extension-peer")
            logger.logLevel = .critical
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
            task = Task { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            port = await iterator.next() ?? 0
        }

        func stop() async {
            task.cancel()
            _ = try? await task.value
        }
    }

    /// A PNG's signature and some bytes: Ana's avatar.
    static let avatar: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 5, count: 500)

    /// The start of an MPEG-4 file (an `ftyp` box, brand `isom`) and some bytes.
    static let video: [UInt8] =
        [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)
        + [UInt8](repeating: 0x2A, count: 4000)

    /// `PUT /v1/admin/apps/{bundle_id}/service-extension` with `body`; the status and the answer.
    static func register(_ herald: PolicyHerald, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
        try await admin(herald, "PUT", body: body)
    }

    static func admin(_ herald: PolicyHerald, _ method: String, body: [String: Any]? = nil) async throws -> (
        Int, [String: Any]
    ) {
        var request = URLRequest(
            url: URL(string: "\(herald.runtime.apiURL)/v1/admin/apps/\(herald.demo.topic)/service-extension")!)
        request.httpMethod = method
        request.setValue("Bearer \(herald.application.adminToken)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }

    /// Pushes `payload` (a JSON object's text); returns its id once the provider has its 200.
    static func push(_ herald: PolicyHerald, _ payload: String, client: APNsClient) async throws -> String {
        let result = try await client.send(
            APNsPush(deviceToken: herald.demo.deviceToken, topic: herald.demo.topic, payload: Data(payload.utf8)))
        guard result.status == 200, let id = result.apnsID else {
            throw PolicyTestError("push answered \(result.status) \(result.reason ?? "")")
        }
        return id.lowercased()
    }

    /// The notification once it is in the device's list (at most 30 s: a guard against a hang).
    static func delivered(_ herald: PolicyHerald, _ id: String) async throws -> StoredNotification {
        for _ in 0..<1500 {
            if let row = try await herald.store.notification(deviceID: herald.demo.deviceID, id: id) { return row }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw PolicyTestError("notification \(id) was not delivered within 30 s")
    }

    static func alert(_ row: StoredNotification) -> JSONValue? {
        json(try? JSONParser.parse(Array(row.payload.utf8)), "aps", "alert")
    }
}
