/// The CLDR cardinal plural rules of one locale, generated from CLDR data
/// (see `scripts/generate-plural-rules` and `Generated/PluralRules+CLDR.swift`).
///
/// A locale falls back to its parents until CLDR has rules for it: `ar_EG` and `ar-EG` use `ar`,
/// `pt_PT` has rules of its own while `pt_BR` uses `pt`, and a locale CLDR doesn't know uses `root`
/// (every number is `other`).
public struct PluralRules: Sendable, Hashable {
    /// The CLDR locale whose rules apply, such as `ar`, `pt_PT` or `root`.
    public let locale: String
    let ruleSet: PluralRuleSet

    /// The rules for a locale identifier in Apple (`pt_BR`) or BCP 47 (`pt-BR`) form.
    public init(locale identifier: String) {
        for candidate in LocaleIdentifier.fallbackChain(identifier) {
            if let ruleSet = PluralRuleSet.byLocale[candidate] {
                self.locale = candidate
                self.ruleSet = ruleSet
                return
            }
        }
        locale = "root"
        ruleSet = PluralRuleSet.byLocale["root"] ?? .bm
    }

    /// The CLDR version the rules come from.
    public static var cldrVersion: String { PluralRuleSet.cldrVersion }

    /// The categories this locale distinguishes, in CLDR order; always ends with `other`.
    public var categories: [PluralCategory] { ruleSet.categories }

    /// The category of a number in this locale.
    public func category(for operand: PluralOperands) -> PluralCategory {
        ruleSet.category(for: operand)
    }

    /// The category of a number in a locale: `category(for: PluralOperands(3), locale: "ar")` is `few`.
    public static func category(for operand: PluralOperands, locale: String) -> PluralCategory {
        PluralRules(locale: locale).category(for: operand)
    }
}
