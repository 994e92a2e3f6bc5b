import Foundation
import HeraldCore
import HeraldStore
import PostgresNIO

// What an app registers for its notifications — categories (JSON objects the API layer defines),
// localization files (kept byte for byte as uploaded), its icon and its web content extension — as
// SQLiteStore keeps them.

extension PostgresStore: AppResourceStore {
    /// Throws `notFound` unless the app exists (inside a write, before touching its resources).
    func requireApp(_ connection: PostgresConnection, _ bundleID: String) async throws {
        guard try await Self.exists(connection, "SELECT 1 FROM apps WHERE bundle_id = \(bundleID)", logger: logger)
        else {
            throw StoreError(.notFound, "There is no app with bundle id \(bundleID).")
        }
    }

    static func appMessages(_ bundleID: String) -> ConstraintMessages {
        ConstraintMessages(notFound: "There is no app with bundle id \(bundleID).")
    }

    // MARK: Categories

    public func upsertCategory(bundleID: String, identifier: String, json: String) async throws {
        guard !identifier.isEmpty else { throw StoreError(.invalid, "A category needs an identifier.") }
        guard PolicyJSON.isObject(json) else {
            throw StoreError(.invalid, "The category \(identifier) is not a JSON object.")
        }
        try await write(Self.appMessages(bundleID)) { connection in
            try await self.requireApp(connection, bundleID)
            try await connection.query(
                """
                INSERT INTO app_categories (bundle_id, identifier, category) VALUES (\(bundleID), \(identifier), \(json))
                ON CONFLICT (bundle_id, identifier) DO UPDATE SET category = excluded.category
                """, logger: self.logger)
        }
    }

    public func replaceCategories(bundleID: String, _ categories: [(identifier: String, json: String)]) async throws {
        for category in categories {
            guard !category.identifier.isEmpty else { throw StoreError(.invalid, "A category needs an identifier.") }
            guard PolicyJSON.isObject(category.json) else {
                throw StoreError(.invalid, "The category \(category.identifier) is not a JSON object.")
            }
        }
        let rows = categories.map { (identifier: $0.identifier, json: $0.json) }
        try await write(Self.appMessages(bundleID)) { connection in
            try await self.requireApp(connection, bundleID)
            try await connection.query("DELETE FROM app_categories WHERE bundle_id = \(bundleID)", logger: self.logger)
            for row in rows {
                try await connection.query(
                    """
                    INSERT INTO app_categories (bundle_id, identifier, category)
                    VALUES (\(bundleID), \(row.identifier), \(row.json))
                    """, logger: self.logger)
            }
        }
    }

    public func category(bundleID: String, identifier: String) async throws -> CategoryRecord? {
        try await read { connection in
            let rows = try await connection.query(
                "SELECT category FROM app_categories WHERE bundle_id = \(bundleID) AND identifier = \(identifier)",
                logger: self.logger)
            for try await json in rows.decode(String.self) {
                return CategoryRecord(bundleID: bundleID, identifier: identifier, json: json)
            }
            return nil
        }
    }

    public func categories(bundleID: String) async throws -> [CategoryRecord] {
        try await read { connection in
            var categories: [CategoryRecord] = []
            let rows = try await connection.query(
                "SELECT identifier, category FROM app_categories WHERE bundle_id = \(bundleID) ORDER BY identifier",
                logger: self.logger)
            for try await (identifier, json) in rows.decode((String, String).self) {
                categories.append(CategoryRecord(bundleID: bundleID, identifier: identifier, json: json))
            }
            return categories
        }
    }

    public func deleteCategory(bundleID: String, identifier: String) async throws -> Bool {
        try await write { connection in
            try await Self.deletes(
                connection, "DELETE FROM app_categories WHERE bundle_id = \(bundleID) AND identifier = \(identifier)",
                logger: self.logger)
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
        try await write(Self.appMessages(bundleID)) { connection in
            try await self.requireApp(connection, bundleID)
            try await connection.query(
                """
                INSERT INTO localization_files (bundle_id, locale, kind, name, data)
                VALUES (\(bundleID), \(locale), \(kind.rawValue), \(name), \(data))
                ON CONFLICT (bundle_id, locale, kind, name) DO UPDATE SET data = excluded.data
                """, logger: self.logger)
        }
    }

    public func localizationFiles(bundleID: String) async throws -> [LocalizationFileRecord] {
        try await read { connection in
            var files: [LocalizationFileRecord] = []
            let rows = try await connection.query(
                """
                SELECT locale, kind, name, data FROM localization_files WHERE bundle_id = \(bundleID)
                ORDER BY locale, kind, name
                """, logger: self.logger)
            for try await (locale, kindName, name, data) in rows.decode((String, String, String, Data).self) {
                guard let kind = LocalizationFileKind(rawValue: kindName) else {
                    throw StoreError(.invalid, "A stored localization file has a kind this version does not know.")
                }
                files.append(
                    LocalizationFileRecord(bundleID: bundleID, locale: locale, kind: kind, name: name, data: data))
            }
            return files
        }
    }

    public func deleteLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String
    ) async throws -> Bool {
        try await write { connection in
            try await Self.deletes(
                connection,
                """
                DELETE FROM localization_files
                WHERE bundle_id = \(bundleID) AND locale = \(locale) AND kind = \(kind.rawValue) AND name = \(name)
                """, logger: self.logger)
        }
    }

    // MARK: Icons

    public func putAppIcon(_ icon: AppIconRecord) async throws {
        guard !icon.type.isEmpty, !icon.data.isEmpty else {
            throw StoreError(.invalid, "An app icon needs an image and its type.")
        }
        try await write(Self.appMessages(icon.bundleID)) { connection in
            try await self.requireApp(connection, icon.bundleID)
            try await connection.query(
                """
                INSERT INTO app_icons (bundle_id, type, data, updated_at)
                VALUES (\(icon.bundleID), \(icon.type), \(icon.data), \(icon.updatedAt.storedMilliseconds))
                ON CONFLICT (bundle_id) DO UPDATE
                SET type = excluded.type, data = excluded.data, updated_at = excluded.updated_at
                """, logger: self.logger)
        }
    }

    public func appIcon(bundleID: String) async throws -> AppIconRecord? {
        try await read { connection in
            let rows = try await connection.query(
                "SELECT type, data, updated_at FROM app_icons WHERE bundle_id = \(bundleID)", logger: self.logger)
            for try await (type, data, updatedAt) in rows.decode((String, Data, Int64).self) {
                return AppIconRecord(
                    bundleID: bundleID, type: type, data: data, updatedAt: Date(storedMilliseconds: updatedAt))
            }
            return nil
        }
    }

    public func deleteAppIcon(bundleID: String) async throws -> Bool {
        try await write { connection in
            try await Self.deletes(
                connection, "DELETE FROM app_icons WHERE bundle_id = \(bundleID)", logger: self.logger)
        }
    }

    // MARK: Content extensions

    public func putContentExtension(_ record: ContentExtensionRecord) async throws {
        guard !record.html.isEmpty, PolicyJSON.isObject(record.options) else {
            throw StoreError(.invalid, "A content extension needs its options as a JSON object and its HTML.")
        }
        try await write(Self.appMessages(record.bundleID)) { connection in
            try await self.requireApp(connection, record.bundleID)
            try await connection.query(
                """
                INSERT INTO content_extensions (bundle_id, options, html, updated_at)
                VALUES (\(record.bundleID), \(record.options), \(record.html), \(record.updatedAt.storedMilliseconds))
                ON CONFLICT (bundle_id) DO UPDATE
                SET options = excluded.options, html = excluded.html, updated_at = excluded.updated_at
                """, logger: self.logger)
        }
    }

    public func contentExtension(bundleID: String) async throws -> ContentExtensionRecord? {
        try await read { connection in
            try await Self.contentExtensions(
                connection,
                "SELECT bundle_id, options, html, updated_at FROM content_extensions WHERE bundle_id = \(bundleID)",
                logger: self.logger
            ).first
        }
    }

    public func contentExtensions() async throws -> [ContentExtensionRecord] {
        try await read { connection in
            try await Self.contentExtensions(
                connection, "SELECT bundle_id, options, html, updated_at FROM content_extensions ORDER BY bundle_id",
                logger: self.logger)
        }
    }

    private static func contentExtensions(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger)
        async throws -> [ContentExtensionRecord]
    {
        var records: [ContentExtensionRecord] = []
        for try await (bundleID, options, html, updatedAt) in try await connection.query(query, logger: logger).decode(
            (String, String, String, Int64).self)
        {
            records.append(
                ContentExtensionRecord(
                    bundleID: bundleID, options: options, html: html, updatedAt: Date(storedMilliseconds: updatedAt)))
        }
        return records
    }

    public func deleteContentExtension(bundleID: String) async throws -> Bool {
        try await write { connection in
            try await Self.deletes(
                connection, "DELETE FROM content_extensions WHERE bundle_id = \(bundleID)", logger: self.logger)
        }
    }
}

extension PostgresStore {
    /// Runs a `DELETE` and tells whether it removed a row (`RETURNING 1`: PostgresNIO does not report
    /// the rows a statement changed through its row sequence).
    static func deletes(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> Bool {
        let returning = PostgresQuery(unsafeSQL: query.sql + " RETURNING 1", binds: query.binds)
        var removed = false
        for try await _ in try await connection.query(returning, logger: logger).decode(Int32.self) { removed = true }
        return removed
    }
}
