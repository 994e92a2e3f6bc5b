import Foundation
import GRDB
import HeraldCore

// What an app registers for its notifications: categories (JSON objects the API layer defines) and
// localization files (kept byte for byte as uploaded; the API layer parses them before storing).

extension SQLiteStore {
    // MARK: Categories

    public func upsertCategory(bundleID: String, identifier: String, json: String) async throws {
        guard !identifier.isEmpty else { throw StoreError(.invalid, "A category needs an identifier.") }
        guard PolicyJSON.isObject(json) else {
            throw StoreError(.invalid, "The category \(identifier) is not a JSON object.")
        }
        try await write(Self.notFound("There is no app with bundle id \(bundleID).")) { db in
            try Self.requireApp(db, bundleID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO app_categories (bundle_id, identifier, category) VALUES (?, ?, ?)
                    ON CONFLICT (bundle_id, identifier) DO UPDATE SET category = excluded.category
                    """
            )
            .execute(arguments: [bundleID, identifier, json])
        }
    }

    public func replaceCategories(bundleID: String, _ categories: [(identifier: String, json: String)]) async throws {
        for category in categories {
            guard !category.identifier.isEmpty else { throw StoreError(.invalid, "A category needs an identifier.") }
            guard PolicyJSON.isObject(category.json) else {
                throw StoreError(.invalid, "The category \(category.identifier) is not a JSON object.")
            }
        }
        let rows = categories.map { [$0.identifier, $0.json] }
        try await write(Self.notFound("There is no app with bundle id \(bundleID).")) { db in
            try Self.requireApp(db, bundleID)
            try db.execute(sql: "DELETE FROM app_categories WHERE bundle_id = ?", arguments: [bundleID])
            for row in rows {
                try db.cachedStatement(
                    sql: "INSERT INTO app_categories (bundle_id, identifier, category) VALUES (?, ?, ?)"
                )
                .execute(arguments: [bundleID, row[0], row[1]])
            }
        }
    }

    public func category(bundleID: String, identifier: String) async throws -> CategoryRecord? {
        try await read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT category FROM app_categories WHERE bundle_id = ? AND identifier = ?"),
                arguments: [bundleID, identifier]
            ).map { CategoryRecord(bundleID: bundleID, identifier: identifier, json: $0) }
        }
    }

    public func categories(bundleID: String) async throws -> [CategoryRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT identifier, category FROM app_categories WHERE bundle_id = ? ORDER BY identifier
                        """),
                arguments: [bundleID]
            ).map { row in
                CategoryRecord(
                    bundleID: bundleID, identifier: try row.decode(atIndex: 0), json: try row.decode(atIndex: 1))
            }
        }
    }

    public func deleteCategory(bundleID: String, identifier: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM app_categories WHERE bundle_id = ? AND identifier = ?")
                .execute(arguments: [bundleID, identifier])
            return db.changesCount > 0
        }
    }

    // MARK: Localization files

    public func putLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String, data: Data
    ) async throws {
        guard !name.isEmpty else { throw StoreError(.invalid, "A localization file needs a name.") }
        guard kind == .xcstrings || !locale.isEmpty else {
            throw StoreError(.invalid, "A .\(kind.rawValue) file needs a locale.")
        }
        try await write(Self.notFound("There is no app with bundle id \(bundleID).")) { db in
            try Self.requireApp(db, bundleID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO localization_files (bundle_id, locale, kind, name, data) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (bundle_id, locale, kind, name) DO UPDATE SET data = excluded.data
                    """
            )
            .execute(arguments: [bundleID, locale, kind.rawValue, name, data])
        }
    }

    public func localizationFiles(bundleID: String) async throws -> [LocalizationFileRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT locale, kind, name, data FROM localization_files WHERE bundle_id = ?
                        ORDER BY locale, kind, name
                        """),
                arguments: [bundleID]
            ).map { row in
                let kindName: String = try row.decode(atIndex: 1)
                guard let kind = LocalizationFileKind(rawValue: kindName) else {
                    throw StoreError(.invalid, "A stored localization file has a kind this version does not know.")
                }
                return LocalizationFileRecord(
                    bundleID: bundleID, locale: try row.decode(atIndex: 0), kind: kind,
                    name: try row.decode(atIndex: 2), data: try row.decode(atIndex: 3)
                )
            }
        }
    }

    public func deleteLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String
    ) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: """
                    DELETE FROM localization_files WHERE bundle_id = ? AND locale = ? AND kind = ? AND name = ?
                    """
            )
            .execute(arguments: [bundleID, locale, kind.rawValue, name])
            return db.changesCount > 0
        }
    }

    // MARK: Icons

    public func putAppIcon(_ icon: AppIconRecord) async throws {
        guard !icon.type.isEmpty, !icon.data.isEmpty else {
            throw StoreError(.invalid, "An app icon needs an image and its type.")
        }
        try await write(Self.notFound("There is no app with bundle id \(icon.bundleID).")) { db in
            try Self.requireApp(db, icon.bundleID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO app_icons (bundle_id, type, data, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (bundle_id) DO UPDATE
                    SET type = excluded.type, data = excluded.data, updated_at = excluded.updated_at
                    """
            )
            .execute(arguments: [icon.bundleID, icon.type, icon.data, icon.updatedAt.storedMilliseconds])
        }
    }

    public func appIcon(bundleID: String) async throws -> AppIconRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT type, data, updated_at FROM app_icons WHERE bundle_id = ?"),
                arguments: [bundleID]
            ).map { row in
                AppIconRecord(
                    bundleID: bundleID, type: try row.decode(atIndex: 0), data: try row.decode(atIndex: 1),
                    updatedAt: Date(storedMilliseconds: try row.decode(atIndex: 2)))
            }
        }
    }

    public func deleteAppIcon(bundleID: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM app_icons WHERE bundle_id = ?").execute(arguments: [bundleID])
            return db.changesCount > 0
        }
    }

    // MARK: Content extensions

    public func putContentExtension(_ record: ContentExtensionRecord) async throws {
        guard !record.html.isEmpty,
            (try? JSONSerialization.jsonObject(with: Data(record.options.utf8))) is [String: Any]
        else {
            throw StoreError(.invalid, "A content extension needs its options as a JSON object and its HTML.")
        }
        try await write(Self.notFound("There is no app with bundle id \(record.bundleID).")) { db in
            try Self.requireApp(db, record.bundleID)
            try db.cachedStatement(
                sql: """
                    INSERT INTO content_extensions (bundle_id, options, html, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (bundle_id) DO UPDATE
                    SET options = excluded.options, html = excluded.html, updated_at = excluded.updated_at
                    """
            )
            .execute(arguments: [record.bundleID, record.options, record.html, record.updatedAt.storedMilliseconds])
        }
    }

    public func contentExtension(bundleID: String) async throws -> ContentExtensionRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT options, html, updated_at FROM content_extensions WHERE bundle_id = ?"),
                arguments: [bundleID]
            ).map { row in
                ContentExtensionRecord(
                    bundleID: bundleID, options: try row.decode(atIndex: 0), html: try row.decode(atIndex: 1),
                    updatedAt: Date(storedMilliseconds: try row.decode(atIndex: 2)))
            }
        }
    }

    public func contentExtensions() async throws -> [ContentExtensionRecord] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT bundle_id, options, html, updated_at FROM content_extensions ORDER BY bundle_id")
            ).map { row in
                ContentExtensionRecord(
                    bundleID: try row.decode(atIndex: 0), options: try row.decode(atIndex: 1),
                    html: try row.decode(atIndex: 2), updatedAt: Date(storedMilliseconds: try row.decode(atIndex: 3)))
            }
        }
    }

    public func deleteContentExtension(bundleID: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(sql: "DELETE FROM content_extensions WHERE bundle_id = ?")
                .execute(arguments: [bundleID])
            return db.changesCount > 0
        }
    }
}
