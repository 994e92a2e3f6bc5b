import Foundation
import HeraldAPI
import HeraldCore
import HeraldPolicy
import HeraldStore

extension PolicyCoordinator {
    /// Fills the JSON API's delivery-policy hooks: cache invalidation and re-planning after user,
    /// device and app writes, the explainer, the next-summary preview and the default app settings.
    func install(into dependencies: inout APIDependencies) {
        dependencies.onUserStateChanged = { [self] userID in await self.userStateChanged(userID: userID) }
        dependencies.onDeviceStateChanged = { [self] deviceID in await self.deviceStateChanged(deviceID: deviceID) }
        dependencies.onAppResourcesChanged = { [self] bundleID in await self.appResourcesChanged(bundleID: bundleID) }
        dependencies.explainNotification = { [self] row, _ in self.explainer.explanation(row) }
        dependencies.nextSummaryPreview = { [self] userID, now in
            try await self.summaryService.nextSummaryPreview(userID: userID, now: now)
        }
        dependencies.defaultAppSettings = DevicePolicyContext.defaultAppSettings
    }
}

extension DecisionExplainer {
    /// The explanation in the API's shape: the decision and a sentence per reason (the same
    /// sentences as `explain`, including the server's own release and summary reasons).
    public func explanation(_ row: StoredNotification) -> DecisionExplanation {
        guard let stored = row.decision else {
            return DecisionExplanation(decision: nil, explanations: [], releasedAt: row.releasedAt)
        }
        let lines = reasonLines(row, stored: stored)
        return DecisionExplanation(
            decision: stored.decision,
            explanations: lines.map { Explanation(code: ReasonCode(rawValue: $0.code), sentence: $0.sentence) },
            releasedAt: row.releasedAt
        )
    }
}
