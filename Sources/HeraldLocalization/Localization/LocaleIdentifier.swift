/// Locale identifiers as Apple and CLDR write them, and the order in which they fall back.
enum LocaleIdentifier {
    /// The canonical form used for lookups: `ar-EG` and `ar_eg` → `ar_EG`, `zh-hant-tw` → `zh_Hant_TW`,
    /// `en_US@calendar=gregorian` and `de-DE-u-co-phonebk` → `en_US` and `de_DE`, `es-419` → `es_419`.
    /// `Base` (Xcode's Base.lproj) stays `Base`.
    static func canonical(_ identifier: String) -> String {
        subtags(of: identifier).joined(separator: "_")
    }

    /// The identifier and its shorter parents, most specific first: `zh-Hant-TW` → `zh_Hant_TW`,
    /// `zh_Hant`, `zh`. Chinese without a script gets the one its region writes, as Apple's
    /// `zh-Hans`/`zh-Hant` folders expect: `zh_TW` → `zh_TW`, `zh_Hant_TW`, `zh_Hant`, `zh`
    /// (Hant for TW, HK and MO; Hans otherwise, and for `zh` alone). Empty for an empty identifier.
    static func fallbackChain(_ identifier: String) -> [String] {
        var parts = subtags(of: identifier)
        var chain: [String] = []
        if parts.first == "zh", parts.count == 1 || parts[1].count != 4 {
            if parts.count > 1 { chain.append(parts.joined(separator: "_")) }
            parts.insert(parts.count > 1 && ["TW", "HK", "MO"].contains(parts[1]) ? "Hant" : "Hans", at: 1)
        }
        return chain + parts.indices.reversed().map { parts[...$0].joined(separator: "_") }
    }

    private static func subtags(of identifier: String) -> [String] {
        let core = identifier.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var result: [String] = []
        for raw in core.split(whereSeparator: { $0 == "-" || $0 == "_" }) {
            let subtag = String(raw)
            if result.isEmpty {
                result.append(subtag.lowercased() == "base" ? "Base" : subtag.lowercased())
                continue
            }
            if subtag.count == 1 { break }  // a BCP 47 extension (-u-, -x-, -t-) ends the locale proper
            if subtag.count == 4, subtag.allSatisfy(\.isLetter) {
                result.append(subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased())
            } else {
                result.append(subtag.uppercased())
            }
        }
        return result
    }
}
