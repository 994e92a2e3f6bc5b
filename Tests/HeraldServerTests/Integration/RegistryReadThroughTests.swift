import Foundation
import HeraldAPI
import HeraldCore
import HeraldStore
import Synchronization
import Testing

@testable import HeraldServer

@Suite("Reading an unknown device token through to the database")
struct RegistryReadThroughTests {
    /// A database with one registered token, and a node's registry that has not heard of it.
    func makeStore() async throws -> (store: SQLiteStore, token: String, node: RegistryCache) {
        let store = try SQLiteStore.inMemory()
        let registry = RegistryService(
            store: store, cache: RegistryCache(),
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString))
        _ = try await registry.createTeam(id: "TEAM000001")
        _ = try await registry.createApp(bundleID: "com.example.app", teamID: "TEAM000001")
        let user = try await registry.createUser(name: "Ann")
        let device = try await registry.createDevice(userID: user.user.userID)
        let token = try await registry.createDeviceToken(deviceID: device.deviceID, bundleID: "com.example.app")
        return (store, token.token, RegistryCache())
    }

    static func unknown(_ index: Int) -> String { String(format: "%064x", index + 1) }

    @Test("a token in the database is read into the registry; one that is not is remembered as missing")
    func foundAndMissing() async throws {
        let (store, token, node) = try await makeStore()
        let readThrough = RegistryReadThrough(store: store, registry: node)
        #expect(node.snapshot.tokens[token] == nil)
        #expect(await readThrough.lookUp(token) == .found)
        #expect(node.snapshot.tokens[token]?.bundleID == "com.example.app")

        #expect(await readThrough.lookUp(Self.unknown(0)) == .missing)
        #expect(await readThrough.lookUp(Self.unknown(0)) == .notRead, "missing a moment ago: not read again")
        #expect(await readThrough.lookUp(Self.unknown(1)) == .missing)
    }

    @Test("past the reads a second allows, an unknown token is refused unread; the budget refills")
    func budgetOfReads() async throws {
        let (store, token, node) = try await makeStore()
        let clock = Mutex(ContinuousClock.now)
        let readThrough = RegistryReadThrough(
            store: store, registry: node, readsPerSecond: 3, now: { clock.withLock { $0 } })
        var outcomes: [RegistryReadThrough.Outcome] = []
        for index in 0..<6 { outcomes.append(await readThrough.lookUp(Self.unknown(index))) }
        #expect(outcomes == [.missing, .missing, .missing, .notRead, .notRead, .notRead])
        clock.withLock { $0 += .milliseconds(700) }
        #expect(await readThrough.lookUp(token) == .found, "two reads came back in 0.7 s")
        #expect(await readThrough.lookUp(Self.unknown(10)) == .missing)
        #expect(await readThrough.lookUp(Self.unknown(11)) == .notRead)
    }

    @Test("the tokens remembered as missing are bounded: past the limit the older half is forgotten")
    func missingIsBounded() async throws {
        let (store, _, node) = try await makeStore()
        let readThrough = RegistryReadThrough(
            store: store, registry: node, readsPerSecond: 100, missingFor: .seconds(60), missingLimit: 4)
        for index in 0..<4 { #expect(await readThrough.lookUp(Self.unknown(index)) == .missing) }
        #expect(await readThrough.lookUp(Self.unknown(4)) == .missing)
        // 0 and 1 (the older half) were forgotten: read again; 2, 3 and 4 are still remembered.
        #expect(await readThrough.lookUp(Self.unknown(0)) == .missing)
        #expect(await readThrough.lookUp(Self.unknown(3)) == .notRead)
        #expect(await readThrough.lookUp(Self.unknown(4)) == .notRead)
    }
}
