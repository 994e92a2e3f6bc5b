import HeraldPolicy

extension DeliveryPolicyEngine.DecisionToStore {
    /// The decision with what the app's service extension did: its context and its reason.
    public func adding(serviceExtension ref: DecisionRecord.ServiceExtensionRef) throws -> Self {
        var stored = self.stored
        stored.context.serviceExtension = ref
        stored.decision.reasons.insert(ref.reason)
        return Self(stored: stored, json: try stored.jsonText())
    }
}
