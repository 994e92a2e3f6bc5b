import Foundation
import HTTPTypes
import HeraldAPI
import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization

/// A clock that moves only when a test moves it: the delivery policy's `ManualClock`, which the
/// routes read too.
final class TestClock: Sendable {
    let manual = ManualClock(now: Date(timeIntervalSince1970: 1_750_000_000.250))

    var now: @Sendable () -> Date { { [manual] in manual.now } }

    func advance(by seconds: TimeInterval) {
        manual.advance(by: seconds)
    }
}

/// The stores the API tests run against: SQLite in memory, and SQLite in a WAL file on disk.
enum StoreKind: String, CaseIterable, Sendable {
    case memory, file
}

/// The API wired to a store, with a temporary data directory.
struct TestHarness {
    static let adminToken = "test-admin-token"
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.app"

    let store: SQLiteStore
    let cache = RegistryCache()
    let clock = TestClock()
    let hub: LiveHub
    /// The real delivery policy (its Focus and summary services are not running: time-driven
    /// behaviour is tested in HeraldServerTests).
    let policy: PolicyCoordinator
    let registry: RegistryService
    let dataDirectory: URL
    let dependencies: APIDependencies

    init(
        _ kind: StoreKind = .memory, queueCapacity: Int = LiveHub.defaultQueueCapacity,
        heartbeatInterval: Duration = .seconds(15), willPresentTimeout: Duration = .seconds(30)
    ) throws {
        dataDirectory = Self.scratch.appendingPathComponent(UUID().uuidString, isDirectory: true)
        switch kind {
        case .memory:
            store = try SQLiteStore.inMemory()
        case .file:
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            store = try SQLiteStore(path: dataDirectory.appendingPathComponent("herald.sqlite").path)
        }
        hub = LiveHub(queueCapacity: queueCapacity, willPresentTimeout: willPresentTimeout)
        registry = RegistryService(store: store, cache: cache, dataDirectory: dataDirectory, now: clock.now)
        var logger = Logger(label: "herald.api.tests")
        logger.logLevel = .critical
        policy = PolicyCoordinator(store: store, registry: cache, hub: hub, clock: clock.manual, logger: logger)
        dependencies = APIDependencies(
            store: store, registry: registry, hub: hub, policy: policy, adminToken: Self.adminToken,
            now: clock.now, logger: logger, heartbeatInterval: heartbeatInterval
        )
    }

    /// Where this test process puts its data directories: `herald-api-tests-<pid>` in the temporary
    /// directory, made once per process after removing those of processes that ended (a harness has
    /// no end of life to remove its own, and 1,300 of them piled up in /tmp over a few sessions).
    static let scratch: URL = {
        let temporary = FileManager.default.temporaryDirectory
        let prefix = "herald-api-tests-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) == 0 { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        return temporary.appendingPathComponent(prefix + "\(getpid())", isDirectory: true)
    }()

    func makeApplication() -> APIApplication {
        makeAPIApplication(dependencies, host: "127.0.0.1", port: 0)
    }

    /// A team with an app, and a user with one device.
    func makeDevice(userName: String = "Alice", makeApp: Bool = true) async throws -> (token: String, device: Device) {
        if makeApp {
            if try await store.teams().isEmpty {
                _ = try await registry.createTeam(id: Self.teamID, name: "Example")
            }
            if try await !store.apps().contains(where: { $0.bundleID == Self.bundleID }) {
                _ = try await registry.createApp(bundleID: Self.bundleID, teamID: Self.teamID)
            }
        }
        let user = try await registry.createUser(name: userName)
        let device = try await registry.createDevice(userID: user.user.userID, name: "\(userName)'s phone")
        return (user.token, device)
    }

    /// Commits notifications for a device and publishes them, as the push pipeline does.
    @discardableResult
    func push(
        _ deviceID: String, id: String = UUID().uuidString.lowercased(), body: String = "Hello",
        collapseID: String? = nil, expiration: Int64? = nil, delivered: Bool = false
    ) async throws -> [StoredNotification] {
        let payload =
            #"{"aps":{"alert":{"title":"Greeting","body":"\#(body)"},"badge":3,"sound":"default","thread-id":"t1","interruption-level":"time-sensitive","relevance-score":0.5},"custom":{"k":[1,2]}}"#
        let row = StoredNotification(
            seq: 0, id: id, deviceID: deviceID, bundleID: Self.bundleID, topic: Self.bundleID, pushType: .alert,
            priority: 10, collapseID: collapseID, expiration: expiration, payload: payload,
            receivedAt: clock.now(), deliveredAt: delivered ? clock.now() : nil
        )
        let changes = try await store.insert([row])
        hub.publish(changes)
        return changes
    }
}

// MARK: Requests and JSON

func bearer(_ token: String) -> HTTPFields {
    [.authorization: "Bearer \(token)"]
}

func jsonBody(_ string: String) -> ByteBuffer {
    ByteBuffer(string: string)
}

extension TestResponse {
    /// The body as JSON (`.null` when it is not JSON).
    var json: JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView))) ?? .null
    }

    /// `error.code` of a JSON error body.
    var errorCode: String? { json["error"]?["code"]?.stringValue }

    var text: String { String(buffer: body) }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let items) = self, items.indices.contains(index) { return items[index] }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    var isNull: Bool { self == .null }
}
