/// Errors the store reports to its callers; the API turns them into JSON errors.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable { case conflict, notFound, invalid }
    public let kind: Kind
    /// A sentence for the user; never contains tokens or payloads.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
