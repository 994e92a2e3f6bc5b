/// A CLDR plural category.
public enum PluralCategory: String, CaseIterable, Sendable, Codable {
    case zero, one, two, few, many, other
}
