import Crypto
import Foundation
import HTTPTypes
import HeraldAttachments
import HeraldCore
import HeraldDelivery
import HeraldLocalization
import HeraldStore
import Hummingbird
import NIOCore

/// Admin routes for what apps register for their notifications (categories, localization files,
/// icons) and the registry lists (`GET /v1/admin/apps|users|devices`); an app's icon is read with a
/// user's token (`GET /v1/apps/{bundle_id}/icon`: the notification center shows it; a generated
/// default until one is set).
struct AppResourceRoutes: Sendable {
    /// The largest localization file accepted (String Catalogs of big apps are large).
    static let maximumLocalizationFileSize = 4 * 1024 * 1024
    /// The largest icon accepted (an app's 1024 × 1024 PNG is well below it).
    static let maximumIconSize = 1024 * 1024

    let dependencies: APIDependencies
    let authenticator: Authenticator

    var store: any HeraldStore { dependencies.store }

    var routes: [APIRoute] {
        [
            APIRoute(.get, "/v1/admin/apps", authenticator.adminOnly(listApps)),
            APIRoute(.get, "/v1/admin/users", authenticator.adminOnly(listUsers)),
            APIRoute(.get, "/v1/admin/devices", authenticator.adminOnly(listDevices)),
            APIRoute(.get, "/v1/admin/apps/{bundle_id}/categories", authenticator.adminOnly(listCategories)),
            APIRoute(.put, "/v1/admin/apps/{bundle_id}/categories/{identifier}", authenticator.adminOnly(putCategory)),
            APIRoute(
                .delete, "/v1/admin/apps/{bundle_id}/categories/{identifier}", authenticator.adminOnly(deleteCategory)),
            APIRoute(.get, "/v1/admin/apps/{bundle_id}/localizations", authenticator.adminOnly(listLocalizations)),
            APIRoute(
                .put, "/v1/admin/apps/{bundle_id}/localizations/{locale}/{file_name}",
                authenticator.adminOnly(putLocalization)),
            APIRoute(
                .delete, "/v1/admin/apps/{bundle_id}/localizations/{locale}/{file_name}",
                authenticator.adminOnly(deleteLocalization)),
            APIRoute(.put, "/v1/admin/apps/{bundle_id}/icon", authenticator.adminOnly(putIcon)),
            APIRoute(.delete, "/v1/admin/apps/{bundle_id}/icon", authenticator.adminOnly(deleteIcon)),
            APIRoute(.get, "/v1/apps/{bundle_id}/icon", icon),
        ]
    }

    // MARK: Lists

    @Sendable func listApps(_ request: Request, context: APIRequestContext) async throws -> Response {
        let apps = try await store.apps().sorted { $0.bundleID < $1.bundleID }
        return JSONBody.response(AppListJSON(apps: apps.map(AppJSON.init)))
    }

    @Sendable func listUsers(_ request: Request, context: APIRequestContext) async throws -> Response {
        let users = try await store.users().sorted { ($0.createdAt, $0.userID) < ($1.createdAt, $1.userID) }
        return JSONBody.response(
            JSONValue.object([
                "users": .array(
                    users.map { user in
                        .object([
                            "user_id": .string(user.userID), "name": .string(user.name),
                            "created_at": .string(Timestamp.string(user.createdAt)),
                        ])
                    })
            ]))
    }

    @Sendable func listDevices(_ request: Request, context: APIRequestContext) async throws -> Response {
        let userID = request.uri.queryParameters.get("user_id").flatMap { $0.isEmpty ? nil : $0 }
        let devices = try await store.devices(userID: userID).sorted {
            ($0.createdAt, $0.deviceID) < ($1.createdAt, $1.deviceID)
        }
        return JSONBody.response(DeviceListJSON(devices: devices.map(DeviceJSON.init)))
    }

    // MARK: Categories

    @Sendable func listCategories(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let records = try await store.categories(bundleID: bundleID)
        let categories = records.map { record in
            (try? JSONDecoder().decode(JSONValue.self, from: Data(record.json.utf8))) ?? .null
        }
        return JSONBody.response(JSONValue.object(["bundle_id": .string(bundleID), "categories": .array(categories)]))
    }

    @Sendable func putCategory(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let identifier = try context.parameters.require("identifier")
        let fields = try await JSONFields.body(request, context: context)
        let category = try CategoryJSON.make(fields, identifier: identifier)
        let existed = try await store.category(bundleID: bundleID, identifier: identifier) != nil
        let text = String(decoding: try JSONBody.encode(category), as: UTF8.self)
        try await mapStoreErrors {
            try await store.upsertCategory(bundleID: bundleID, identifier: identifier, json: text)
        }
        await dependencies.policy.appResourcesChanged(bundleID: bundleID)
        return JSONBody.response(status: existed ? .ok : .created, category)
    }

    @Sendable func deleteCategory(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let identifier = try context.parameters.require("identifier")
        guard try await store.deleteCategory(bundleID: bundleID, identifier: identifier) else {
            throw APIError.notFound("category_not_found", "The app has no category with this identifier.")
        }
        await dependencies.policy.appResourcesChanged(bundleID: bundleID)
        return Response(status: .noContent)
    }

    // MARK: Localization files

    @Sendable func listLocalizations(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let files = try await store.localizationFiles(bundleID: bundleID)
        return JSONBody.response(
            JSONValue.object([
                "bundle_id": .string(bundleID),
                "files": .array(files.map(Self.fileJSON)),
            ]))
    }

    @Sendable func putLocalization(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let (locale, name, kind) = try Self.fileParameters(context)
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maximumLocalizationFileSize)
        } catch is NIOTooManyBytesError {
            throw APIError(
                .contentTooLarge, code: "payload_too_large", message: "A localization file may have at most 4 MiB.")
        }
        let data = Data(buffer.readableBytesView)
        guard !data.isEmpty else {
            throw APIError(
                .badRequest, code: "invalid_localization_file",
                message: "The body must be the file's content; it is empty.")
        }
        var localizations = AppLocalizations()
        do {
            switch kind {
            case .strings: try localizations.addStringsFile(data, locale: locale)
            case .stringsdict: try localizations.addStringsDictionary(data, locale: locale)
            case .xcstrings: try localizations.addStringCatalog(data)
            }
        } catch let error as LocalizationFileError {
            throw APIError(.badRequest, code: "invalid_localization_file", message: "\(name): \(error.description)")
        } catch {
            throw APIError(.badRequest, code: "invalid_localization_file", message: "\(name): \(error)")
        }
        let existed = try await store.localizationFiles(bundleID: bundleID).contains {
            $0.locale == locale && $0.kind == kind && $0.name == name
        }
        try await mapStoreErrors {
            try await store.putLocalizationFile(bundleID: bundleID, locale: locale, kind: kind, name: name, data: data)
        }
        await dependencies.policy.appResourcesChanged(bundleID: bundleID)
        var json = Self.fileJSON(
            LocalizationFileRecord(bundleID: bundleID, locale: locale, kind: kind, name: name, data: data))
        if case .object(var object) = json {
            object["locales"] = .strings(localizations.locales)
            json = .object(object)
        }
        return JSONBody.response(status: existed ? .ok : .created, json)
    }

    @Sendable func deleteLocalization(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let (locale, name, kind) = try Self.fileParameters(context)
        guard try await store.deleteLocalizationFile(bundleID: bundleID, locale: locale, kind: kind, name: name) else {
            throw APIError.notFound("localization_not_found", "The app has no localization file \(name) for \(locale).")
        }
        await dependencies.policy.appResourcesChanged(bundleID: bundleID)
        return Response(status: .noContent)
    }

    /// The locale, file name and kind of a localization route (the kind by the name's extension).
    static func fileParameters(_ context: APIRequestContext) throws -> (String, String, LocalizationFileKind) {
        let locale = try context.parameters.require("locale")
        let name = try context.parameters.require("file_name")
        guard locale == "Base" || Identifiers.isLocale(locale) else {
            throw APIError.invalidParameter(
                "locale", "must be a locale identifier like `en`, `pt-BR` or `zh-Hans` (or `Base`).")
        }
        let kind: LocalizationFileKind
        if name.hasSuffix(".stringsdict") {
            kind = .stringsdict
        } else if name.hasSuffix(".strings") {
            kind = .strings
        } else if name.hasSuffix(".xcstrings") {
            kind = .xcstrings
        } else {
            throw APIError.invalidParameter("file_name", "must end in `.strings`, `.stringsdict` or `.xcstrings`.")
        }
        guard name.count > kind.rawValue.count + 1, !name.contains("/"), name.count <= 255 else {
            throw APIError.invalidParameter("file_name", "must be a file name like `Localizable.strings`.")
        }
        return (locale, name, kind)
    }

    static func fileJSON(_ file: LocalizationFileRecord) -> JSONValue {
        let digest = SHA256.hash(data: file.data).map { byte in
            (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        return .object([
            "bundle_id": .string(file.bundleID),
            "locale": .string(file.locale),
            "kind": .string(file.kind.rawValue),
            "name": .string(file.name),
            "size": .number(Double(file.data.count)),
            "sha256": .string(digest),
        ])
    }

    /// The path's bundle id, when an app has it (404 `app_not_found` otherwise).
    // MARK: Icons

    /// `PUT /v1/admin/apps/{bundle_id}/icon`: the image's bytes as the body (PNG, JPEG or GIF, sniffed
    /// from the bytes; at most 1 MiB).
    @Sendable func putIcon(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maximumIconSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, code: "payload_too_large", message: "An icon may have at most 1 MiB.")
        }
        let data = Data(buffer.readableBytesView)
        guard let type = AttachmentMediaType.sniff(Array(data.prefix(64))), [.png, .jpeg, .gif].contains(type) else {
            throw APIError(
                .badRequest, code: "invalid_icon", message: "The body must be the icon's PNG, JPEG or GIF image.")
        }
        let record = AppIconRecord(bundleID: bundleID, type: type.mimeType, data: data, updatedAt: dependencies.now())
        try await mapStoreErrors { try await store.putAppIcon(record) }
        return JSONBody.response(JSONValue.object(["icon": Self.iconJSON(record)]))
    }

    @Sendable func deleteIcon(_ request: Request, context: APIRequestContext) async throws -> Response {
        let bundleID = try await requireApp(context)
        guard try await store.deleteAppIcon(bundleID: bundleID) else {
            throw APIError.notFound("icon_not_found", "The app has no icon.")
        }
        return Response(status: .noContent)
    }

    /// `GET /v1/apps/{bundle_id}/icon` (a user's token, in the header or `?access_token=`): the image
    /// set for the app, else a generated default (``defaultIcon(bundleID:)``): every known app has one.
    @Sendable func icon(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try await authenticator.requireUser(request)
        let bundleID = try await requireApp(context)
        var headers = HTTPFields()
        headers[.cacheControl] = "private, no-cache"
        let body: Data
        if let icon = try await store.appIcon(bundleID: bundleID) {
            headers[.contentType] = icon.type
            headers[.eTag] = "\"\(Int64(icon.updatedAt.timeIntervalSince1970 * 1000))\""
            body = icon.data
        } else {
            headers[.contentType] = "image/svg+xml"
            body = Data(Self.defaultIcon(bundleID: bundleID).utf8)
        }
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An app's icon until one is set: the initial of its name (the bundle id's last part) in white on
    /// a colour drawn from the bundle id, as a rounded square.
    static func defaultIcon(bundleID: String) -> String {
        let name = bundleID.split(separator: ".").last.map(String.init) ?? bundleID
        let initial = name.first.map { String($0).uppercased() } ?? "?"
        let escaped = initial.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        var hash: UInt32 = 0
        for unit in bundleID.utf16 { hash = hash &* 31 &+ UInt32(unit) }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">\
            <rect width="64" height="64" rx="14" fill="hsl(\(hash % 360), 55%, 45%)"/>\
            <text x="32" y="43" font-family="sans-serif" font-size="30" font-weight="700" fill="#fff" \
            text-anchor="middle">\(escaped)</text></svg>
            """
    }

    static func iconJSON(_ icon: AppIconRecord) -> JSONValue {
        .object([
            "bundle_id": .string(icon.bundleID), "type": .string(icon.type), "size": .number(Double(icon.data.count)),
            "updated_at": .string(Timestamp.string(icon.updatedAt)),
        ])
    }

    private func requireApp(_ context: APIRequestContext) async throws -> String {
        try await Self.requireApp(context, dependencies: dependencies)
    }

    /// The route's `{bundle_id}`, 404 `app_not_found` unless the app exists (the registry's cache
    /// first, then the store).
    static func requireApp(_ context: APIRequestContext, dependencies: APIDependencies) async throws -> String {
        let bundleID = try context.parameters.require("bundle_id")
        if dependencies.registry.cache.snapshot.apps[bundleID] != nil { return bundleID }
        guard try await dependencies.store.apps().contains(where: { $0.bundleID == bundleID }) else {
            throw APIError.notFound("app_not_found", "There is no app with this bundle id.")
        }
        return bundleID
    }
}

struct AppListJSON: Encodable {
    var apps: [AppJSON]
}

struct DeviceListJSON: Encodable {
    var devices: [DeviceJSON]
}
