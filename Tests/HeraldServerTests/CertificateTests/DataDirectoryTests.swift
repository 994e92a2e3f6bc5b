import Foundation
import HeraldCore
import HeraldDelivery
import HeraldServer
import Testing

extension CertificateTests {
    @Suite("The data directory's small files")
    struct DataDirectoryTests {
        @Test func theAdminTokenIsCreatedOnceWithMode0600() throws {
            let root = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let directory = DataDirectory(root: root.appendingPathComponent("data"))
            #expect(try directory.readAdminToken() == nil)

            let token = try directory.loadOrCreateAdminToken()
            #expect(token.count >= 40)
            #expect(try directory.loadOrCreateAdminToken() == token)
            #expect(try directory.readAdminToken() == token)
            #expect(try String(contentsOf: directory.adminTokenURL, encoding: .utf8) == token + "\n")
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.adminTokenURL.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        @Test func twoDirectoriesGetDifferentAdminTokens() throws {
            let root = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let first = try DataDirectory(root: root.appendingPathComponent("a")).loadOrCreateAdminToken()
            let second = try DataDirectory(root: root.appendingPathComponent("b")).loadOrCreateAdminToken()
            #expect(first != second)
        }

        @Test func demoJSONUsesTheContractsSnakeCaseKeys() throws {
            let root = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let directory = DataDirectory(root: root)
            #expect(try directory.readDemo() == nil)
            let demo = DemoSetup(
                teamID: "ABCDE12345", keyID: "ABC123DEFG", keyPath: directory.privateKeyURL(keyID: "ABC123DEFG").path,
                topic: "com.herald.demo", deviceToken: String(repeating: "ab", count: 32), deviceID: "dev_1",
                userToken: "usr_tok"
            )
            try directory.writeDemo(demo)
            #expect(try directory.readDemo() == demo)

            let object = try #require(
                try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: directory.demoURL)).objectValue)
            #expect(
                Set(object.keys) == [
                    "team_id", "key_id", "key_path", "topic", "device_token", "device_id", "user_token",
                ])
            #expect(object["key_path"]?.stringValue?.hasSuffix("/keys/AuthKey_ABC123DEFG.p8") == true)
        }

        @Test func runtimeJSONRoundTripsAndCanBeRemovedByItsProcess() throws {
            let root = try makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let directory = DataDirectory(root: root)
            let runtime = RuntimeInfo(
                apiURL: "http://127.0.0.1:40001", apnsURL: "http://127.0.0.1:40002",
                apnsTLSURL: "https://127.0.0.1:40003", pid: 4242)
            try directory.writeRuntime(runtime)
            #expect(try directory.readRuntime() == runtime)
            let object = try #require(
                try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: directory.runtimeURL)).objectValue)
            #expect(Set(object.keys) == ["api_url", "apns_url", "apns_tls_url", "pid"])
            #expect(object["pid"] == .number(4242))

            // Another process's file (a node sharing the directory) stays.
            try directory.removeRuntime()
            #expect(try directory.readRuntime() == runtime)
            // This process's goes.
            let own = RuntimeInfo(
                apiURL: runtime.apiURL, apnsURL: runtime.apnsURL, apnsTLSURL: runtime.apnsTLSURL,
                pid: ProcessInfo.processInfo.processIdentifier)
            try directory.writeRuntime(own)
            try directory.removeRuntime()
            #expect(try directory.readRuntime() == nil)
            try directory.removeRuntime()  // already gone: no error
        }

        @Test func pathsFollowTheContract() {
            let directory = DataDirectory(path: "/srv/herald")
            #expect(directory.databaseURL.path == "/srv/herald/herald.sqlite")
            #expect(directory.adminTokenURL.path == "/srv/herald/admin-token")
            #expect(directory.authorityCertificateURL.path == "/srv/herald/tls/ca.pem")
            #expect(directory.privateKeyURL(keyID: "ABC123DEFG").path == "/srv/herald/keys/AuthKey_ABC123DEFG.p8")
            #expect(directory.demoURL.path == "/srv/herald/demo.json")
            #expect(directory.runtimeURL.path == "/srv/herald/runtime.json")
        }
    }
}
