import Foundation
import HTTPTypes
import HeraldCore
import HeraldDelivery
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

@testable import HeraldAPI

/// The paths, operations, components and references of an OpenAPI document, parsed as YAML (Yams).
struct OpenAPIOutline {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// `METHOD /path` of every operation.
    var operations: Set<String> = []
    /// `#/components/<kind>/<name>` of every component defined.
    var components: Set<String> = []
    /// Every `$ref` anywhere in the document.
    var references: Set<String> = []

    init(yaml: String) throws {
        let document = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        for (path, item) in paths {
            for method in (item as? [String: Any] ?? [:]).keys where Self.methods.contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        for (kind, entries) in document["components"] as? [String: Any] ?? [:] {
            for name in (entries as? [String: Any] ?? [:]).keys { components.insert("#/components/\(kind)/\(name)") }
        }
        Self.collectReferences(document, into: &references)
    }

    private static func collectReferences(_ node: Any, into references: inout Set<String>) {
        if let object = node as? [String: Any] {
            if let reference = object["$ref"] as? String { references.insert(reference) }
            for value in object.values { collectReferences(value, into: &references) }
        } else if let array = node as? [Any] {
            for value in array { collectReferences(value, into: &references) }
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
        let outline = try OpenAPIOutline(yaml: try await Self.document())
        let served = Set(APIRoutes.all(harness.dependencies).map(\.endpoint.description))
        #expect(!served.isEmpty)
        #expect(
            outline.operations == served,
            "only documented: \(outline.operations.subtracting(served)); only served: \(served.subtracting(outline.operations))"
        )
    }

    @Test("every documented operation reaches a route (never 404 not_found or 405)")
    func documentedOperationsAreRouted() async throws {
        let harness = try TestHarness()
        let outline = try OpenAPIOutline(yaml: try await Self.document())
        try await harness.makeApplication().test(.router) { client in
            for operation in outline.operations.sorted() {
                let parts = operation.split(separator: " ", maxSplits: 1)
                let method = try #require(HTTPRequest.Method(String(parts[0])))
                let uri = String(parts[1]).replacingOccurrences(
                    of: #"\{[a-z_]+\}"#, with: "x", options: .regularExpression)
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status != .methodNotAllowed, "\(operation)")
                #expect(response.errorCode != "not_found", "\(operation)")
            }
        }
    }

    @Test("every reference of the document is a component it defines (schemas, responses, parameters, security)")
    func referencesResolve() async throws {
        let outline = try OpenAPIOutline(yaml: try await Self.document())
        #expect(outline.references.count > 50)
        for reference in outline.references {
            #expect(outline.components.contains(reference), "\(reference)")
        }
    }
}
