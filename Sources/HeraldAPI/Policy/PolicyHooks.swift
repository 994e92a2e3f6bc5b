import Foundation
import HeraldCore
import HeraldPolicy

/// A notification's decision with a sentence per reason: what `GET /v1/notifications/{id}/decision`
/// and `herald explain` show. The server's explainer builds one (`APIDependencies.explainNotification`).
public struct DecisionExplanation: Sendable, Hashable {
    /// The decision; nil while the notification is not decided yet.
    public var decision: Decision?
    /// Each reason code with its sentence, in the order the rules fired.
    public var explanations: [Explanation]
    /// One sentence summing the decision up ("Held for the Work Focus."); nil leaves it out.
    public var summary: String?
    /// When a held notification was released (by its Focus ending or a Scheduled Summary).
    public var releasedAt: Date?

    public init(decision: Decision?, explanations: [Explanation], summary: String? = nil, releasedAt: Date? = nil) {
        self.decision = decision
        self.explanations = explanations
        self.summary = summary
        self.releasedAt = releasedAt
    }
}
