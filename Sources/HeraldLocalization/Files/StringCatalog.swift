import Foundation

/// A String Catalog (`Localizable.xcstrings`): the JSON file Xcode 15 and later keep all locales in.
///
/// `{"sourceLanguage": "en", "strings": {KEY: {"localizations": {LOCALE: NODE}}}}` where a node has a
/// `stringUnit` `{state, value}`, or `variations` (`plural`: category → node; `device`: device →
/// node, of which Herald uses `iphone`, else `other`, else the first by name), and may have
/// `substitutions` (name → `{argNum, formatSpecifier, variations: {plural}}`, whose texts write the
/// number as `%arg`) for the `%#@name@` tokens of its text. Units in state `new` are skipped outside
/// the source language (they are not translated yet), so the lookup falls back as for a missing one.
enum StringCatalog {
    struct Contents {
        var sourceLanguage: String
        /// Entries per locale, as the catalog spells the locale (`pt-BR`).
        var entries: [String: [String: LocalizedEntry]]
    }

    static func parse(_ data: Data) throws -> Contents {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw invalid(
                context.underlyingError.map { "not JSON (\($0.localizedDescription))" } ?? context.debugDescription)
        } catch let DecodingError.keyNotFound(key, context) {
            throw invalid("missing \"\(key.stringValue)\" at \(path(context))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw invalid("unexpected value at \(path(context))")
        } catch {
            throw invalid("\(error)")
        }
        var contents = Contents(sourceLanguage: file.sourceLanguage, entries: [:])
        for (key, string) in file.strings {
            for (locale, node) in string.localizations ?? [:] {
                let isSource = locale == file.sourceLanguage
                if let entry = entry(node, substitutions: [:], includeNew: isSource) {
                    contents.entries[locale, default: [:]][key] = entry
                }
            }
        }
        return contents
    }

    private static func entry(_ node: Node, substitutions inherited: [String: Substitution], includeNew: Bool)
        -> LocalizedEntry?
    {
        let substitutions =
            inherited
            .merging(node.variations?.substitutions ?? [:]) { $1 }
            .merging(node.substitutions ?? [:]) { $1 }
        if let devices = node.variations?.device {
            guard let device = ["iphone", "other"].first(where: { devices[$0] != nil }) ?? devices.keys.min(),
                let chosen = devices[device]
            else { return nil }
            return entry(chosen, substitutions: substitutions, includeNew: includeNew)
        }
        let body: LocalizedEntry.Body
        if let plural = node.variations?.plural {
            let variants = texts(plural, includeNew: includeNew)
            guard !variants.isEmpty else { return nil }
            body = .plural(PluralVariable(variants: variants))
        } else if let unit = node.stringUnit, includeNew || unit.state != "new" {
            body = .text(unit.value)
        } else {
            return nil
        }
        var variables: [String: PluralVariable] = [:]
        for (name, substitution) in substitutions {
            let argument = "%" + (substitution.argNum.map { "\($0)$" } ?? "") + (substitution.formatSpecifier ?? "@")
            let variants = texts(substitution.variations?.plural ?? [:], includeNew: includeNew)
                .mapValues { $0.replacingOccurrences(of: "%arg", with: argument) }
            variables[name] = PluralVariable(
                variants: variants, valueType: substitution.formatSpecifier, argumentIndex: substitution.argNum)
        }
        return LocalizedEntry(body: body, variables: variables, source: .stringCatalog)
    }

    private static func texts(_ plural: [String: Node], includeNew: Bool) -> [PluralCategory: String] {
        var variants: [PluralCategory: String] = [:]
        for (name, node) in plural {
            guard let category = PluralCategory(rawValue: name), let unit = node.stringUnit,
                includeNew || unit.state != "new"
            else { continue }
            variants[category] = unit.value
        }
        return variants
    }

    private static func invalid(_ reason: String) -> LocalizationFileError {
        LocalizationFileError(fileKind: "xcstrings", reason: reason)
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map(\.stringValue)
        return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
    }

    private struct File: Decodable {
        let sourceLanguage: String
        let strings: [String: CatalogString]
    }

    private struct CatalogString: Decodable {
        let localizations: [String: Node]?
    }

    private struct Node: Decodable {
        let stringUnit: StringUnit?
        let variations: Variations?
        let substitutions: [String: Substitution]?
    }

    private struct Variations: Decodable {
        let plural: [String: Node]?
        let device: [String: Node]?
        let substitutions: [String: Substitution]?
    }

    private struct StringUnit: Decodable {
        let state: String?
        let value: String
    }

    private struct Substitution: Decodable {
        let argNum: Int?
        let formatSpecifier: String?
        let variations: Variations?
    }
}
