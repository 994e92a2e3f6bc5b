import Foundation

/// A `Localizable.stringsdict` file: an XML (or binary) property list as Xcode exports it.
///
/// Each key maps to a dictionary with `NSStringLocalizedFormatKey` (a format that names variables,
/// `%#@comment@`) and, per variable, a dictionary with `NSStringFormatSpecTypeKey` =
/// `NSStringPluralRuleType`, an optional `NSStringFormatValueTypeKey` (`u`, `d`, …) and the texts for
/// `zero` `one` `two` `few` `many` `other`. Also read: `NSStringVariableWidthRuleType` (the widest
/// text is used) and `NSStringDeviceSpecificRuleType` (the `iphone` text, else `other`, else the
/// first by name). Parsed with Foundation's `PropertyListSerialization`.
enum StringsDictionary {
    static func parse(_ data: Data) throws -> [String: LocalizedEntry] {
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw LocalizationFileError(
                fileKind: "stringsdict", reason: "not a property list (\(error.localizedDescription))")
        }
        guard let dictionary = root as? [String: Any] else {
            throw LocalizationFileError(fileKind: "stringsdict", reason: "the top level is not a dictionary")
        }
        var entries: [String: LocalizedEntry] = [:]
        for (key, value) in dictionary {
            entries[key] = try entry(value, key: key)
        }
        return entries
    }

    private static func entry(_ value: Any, key: String) throws -> LocalizedEntry {
        if let text = value as? String {
            return LocalizedEntry(body: .text(text), source: .stringsDictionary)
        }
        guard let dictionary = value as? [String: Any] else {
            throw invalid(key, "is neither a dictionary nor a string")
        }
        if let widths = dictionary["NSStringVariableWidthRuleType"] as? [String: Any] {
            let widest = widths.keys.max { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }
            guard let widest, let chosen = widths[widest] else {
                throw invalid(key, "has an empty NSStringVariableWidthRuleType")
            }
            return try entry(chosen, key: key)
        }
        if let devices = dictionary["NSStringDeviceSpecificRuleType"] as? [String: Any] {
            guard let device = ["iphone", "other"].first(where: { devices[$0] != nil }) ?? devices.keys.min(),
                let chosen = devices[device]
            else { throw invalid(key, "has an empty NSStringDeviceSpecificRuleType") }
            return try entry(chosen, key: key)
        }
        guard let format = dictionary["NSStringLocalizedFormatKey"] as? String else {
            throw invalid(key, "has no NSStringLocalizedFormatKey string")
        }
        var variables: [String: PluralVariable] = [:]
        for (name, value) in dictionary where name != "NSStringLocalizedFormatKey" {
            guard let spec = value as? [String: Any],
                spec["NSStringFormatSpecTypeKey"] as? String == "NSStringPluralRuleType"
            else {
                continue  // other rule types are not variables Herald can resolve; the token stays visible
            }
            var variants: [PluralCategory: String] = [:]
            for category in PluralCategory.allCases {
                guard let text = spec[category.rawValue] else { continue }
                guard let text = text as? String else {
                    throw invalid(key, "has a non-string '\(category.rawValue)' in variable '\(name)'")
                }
                variants[category] = text
            }
            variables[name] = PluralVariable(
                variants: variants, valueType: spec["NSStringFormatValueTypeKey"] as? String)
        }
        return LocalizedEntry(body: .text(format), variables: variables, source: .stringsDictionary)
    }

    private static func invalid(_ key: String, _ problem: String) -> LocalizationFileError {
        LocalizationFileError(fileKind: "stringsdict", reason: "the entry \"\(key)\" \(problem)")
    }
}
