import Foundation
import HeraldCore
import HeraldStore
import Hummingbird

/// An app's notification service extension, admin only:
/// - `PUT /v1/admin/apps/{bundle_id}/service-extension` `{"executable", "arguments"?}` (a Swift
///   executable built against Herald's UserNotifications, launched by Herald) or `{"url"}` (an
///   HTTPS endpoint), with `"timeout_seconds"?` (30), `"memory_limit_mb"?` (128, processes only) and
///   `"processes"?` (2: how many run at once) → the registration (a webhook's with its new signing
///   `secret`, shown once: each request Herald POSTs is signed with it as Standard Webhooks sign);
/// - `GET …/service-extension` → the registration;
/// - `DELETE …/service-extension` → 204.
/// From then on, the app's alert pushes with `mutable-content: 1` go through it (`ServiceExtensionService`).
struct ServiceExtensionRoutes: Sendable {
    static let defaultTimeoutSeconds = 30.0
    static let defaultMemoryLimitMiB = 128
    static let defaultProcesses = 2

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        let path = "/v1/admin/apps/{bundle_id}/service-extension"
        return [
            APIRoute(.put, path, authenticator.adminOnly(set)),
            APIRoute(.get, path, authenticator.adminOnly(show)),
            APIRoute(.delete, path, authenticator.adminOnly(remove)),
        ]
    }

    static let notFound = APIError.notFound(
        "service_extension_not_found", "This app has no notification service extension.")

    @Sendable func set(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        let record = try Self.record(
            bundleID: bundleID, try await JSONFields.body(request, context: context), now: dependencies.now())
        do {
            try await store.setServiceExtension(record)
        } catch let error as StoreError where error.kind == .notFound {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        await dependencies.serviceExtensionsChanged()
        return JSONBody.response(Self.json(record, showingSecret: true))
    }

    @Sendable func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        guard let record = try await store.serviceExtensions().first(where: { $0.bundleID == bundleID }) else {
            throw Self.notFound
        }
        return JSONBody.response(Self.json(record))
    }

    @Sendable func remove(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try context.parameters.require("bundle_id")
        guard try await store.removeServiceExtension(bundleID: bundleID) else { throw Self.notFound }
        await dependencies.serviceExtensionsChanged()
        return Response(status: .noContent)
    }

    static func record(bundleID: String, _ fields: JSONFields, now: Date) throws -> ServiceExtensionRecord {
        try fields.allowOnly(["executable", "arguments", "url", "timeout_seconds", "memory_limit_mb", "processes"])
        let runner: ServiceExtensionRecord.Runner
        switch (try fields.string("executable"), try fields.string("url")) {
        case (let executable?, nil):
            guard executable.hasPrefix("/") else {
                throw APIError.invalidField("executable", "must be an absolute path.")
            }
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw APIError.invalidField("executable", "is not an executable file on the server: \(executable)")
            }
            runner = .process(executable: executable, arguments: try fields.strings("arguments") ?? [])
        case (nil, let url?):
            if fields.has("arguments") {
                throw APIError.invalidField("arguments", "are for an executable, not a url.")
            }
            if fields.has("memory_limit_mb") {
                throw APIError.invalidField("memory_limit_mb", "is for an executable, not a url.")
            }
            try WebhookRoutes.validate(url: url)
            runner = .webhook(url: url, secret: WebhookRoutes.newSecret())
        case (nil, nil):
            throw APIError.missingField("executable")
        case (.some, .some):
            throw APIError.invalidField("url", "cannot be given with an executable: choose one.")
        }
        let timeout = try number(fields, "timeout_seconds", in: 0.1...300) ?? defaultTimeoutSeconds
        let memory = try number(fields, "memory_limit_mb", in: 8...65_536, integer: true).map(Int.init)
        let processes = try number(fields, "processes", in: 1...64, integer: true).map(Int.init)
        return ServiceExtensionRecord(
            bundleID: bundleID, runner: runner, timeoutMilliseconds: Int((timeout * 1000).rounded()),
            memoryLimitBytes: (memory ?? defaultMemoryLimitMiB) << 20, processes: processes ?? defaultProcesses,
            createdAt: now)
    }

    private static func number(
        _ fields: JSONFields, _ key: String, in range: ClosedRange<Double>, integer: Bool = false
    ) throws -> Double? {
        guard let value = fields.object[key], value != .null else { return nil }
        let kind = integer ? "an integer" : "a number"
        guard case .number(let number) = value, range.contains(number), !integer || number == number.rounded()
        else {
            throw APIError.invalidField(
                key, "must be \(kind) from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()).")
        }
        return number
    }

    /// The registration; a webhook's secret only when it was just made (`PUT`), as the app webhooks'.
    static func json(_ record: ServiceExtensionRecord, showingSecret: Bool = false) -> JSONValue {
        var object: [String: JSONValue] = [
            "bundle_id": .string(record.bundleID),
            "timeout_seconds": .number(Double(record.timeoutMilliseconds) / 1000),
            "processes": .number(Double(record.processes)),
            "created_at": .string(Timestamp.string(record.createdAt)),
        ]
        switch record.runner {
        case .process(let executable, let arguments):
            object["kind"] = .string("process")
            object["executable"] = .string(executable)
            object["arguments"] = .strings(arguments)
            object["url"] = .null
            object["memory_limit_mb"] = .number(Double(record.memoryLimitBytes >> 20))
        case .webhook(let url, let secret):
            object["kind"] = .string("webhook")
            if showingSecret { object["secret"] = .string(secret) }
            object["executable"] = .null
            object["arguments"] = .array([])
            object["url"] = .string(url)
            object["memory_limit_mb"] = .null
        }
        return .object(object)
    }
}
