import Foundation
import HTTPTypes
@testable import HeraldAPI
import HeraldCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The paths and operations of an OpenAPI document, read line by line: a path is a key at indent
/// 2 under `paths:` starting with `/`, an operation a method key at indent 4 below it.
struct OpenAPIOutline {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    var operations: Set<String> = []
    var schemas: Set<String> = []
    var references: Set<String> = []

    init(yaml: String) {
        var section = ""
        var subsection = ""
        var path: String?
        for rawLine in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let range = trimmed.range(of: "$ref: ") {
                references.insert(trimmed[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\"'")))
            }
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), trimmed.hasSuffix(":") else { continue }
            let indent = line.prefix { $0 == " " }.count
            let key = String(trimmed.dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            switch indent {
            case 0: section = key; path = nil
            case 2: subsection = key; path = section == "paths" && key.hasPrefix("/") ? key : nil
            case 4:
                if let path, Self.methods.contains(key) { operations.insert("\(key.uppercased()) \(path)") }
                if section == "components", subsection == "schemas" { schemas.insert(key) }
            default: break
            }
        }
    }
}

@Suite("OpenAPI document")
struct OpenAPITests {
    /// The document as the server serves it.
    static func document() async throws -> String {
        try await TestHarness().makeApplication().test(.router) { client in
            try await client.execute(uri: "/openapi.yaml", method: .get).text
        }
    }

    @Test("the document describes exactly the routes the router serves")
    func routesAgree() async throws {
        let harness = try TestHarness()
        let outline = OpenAPIOutline(yaml: try await Self.document())
        let served = Set(APIRoutes.all(harness.dependencies).map(\.endpoint.description))
        #expect(!served.isEmpty)
        #expect(outline.operations == served, "only documented: \(outline.operations.subtracting(served)); only served: \(served.subtracting(outline.operations))")
    }

    @Test("every documented operation reaches a route (never 404 not_found or 405)")
    func documentedOperationsAreRouted() async throws {
        let harness = try TestHarness()
        let outline = OpenAPIOutline(yaml: try await Self.document())
        try await harness.makeApplication().test(.router) { client in
            for operation in outline.operations.sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1)
                let method = try #require(HTTPRequest.Method(String(parts[0])))
                let uri = String(parts[1]).replacingOccurrences(of: #"\{[a-z_]+\}"#, with: "x", options: .regularExpression)
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status != .methodNotAllowed, "\(operation)")
                #expect(response.errorCode != "not_found", "\(operation)")
            }
        }
    }

    @Test("every schema the document references is defined")
    func referencesResolve() async throws {
        let outline = OpenAPIOutline(yaml: try await Self.document())
        for reference in outline.references where reference.hasPrefix("#/components/schemas/") {
            #expect(outline.schemas.contains(String(reference.dropFirst("#/components/schemas/".count))), "\(reference)")
        }
    }
}
