import Foundation
import HeraldCore
import HeraldPolicy

/// The error of a store operation that a store does not implement.
public struct UnsupportedStoreOperation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The operation, as `updateDecision`.
    public let operation: String

    public init(_ operation: String) { self.operation = operation }

    public var description: String { "This store does not implement \(operation)." }
}

// Defaults for the delivery-policy part of the protocol, so that a store written before it (a test
// double) keeps compiling: each throws `UnsupportedStoreOperation`, which is not a `StoreError`, so
// the API reports it as an internal error. `SQLiteStore` implements every one of them.
extension HeraldStore {
    public func updateDecision(
        deviceID: String, id: String, decision: DecisionRecord, releasedAt: Date?, at date: Date
    ) async throws -> StoredNotification? {
        throw UnsupportedStoreOperation("updateDecision")
    }

    public func heldNotifications(deviceIDs: [String], dispositions: Set<Disposition>) async throws
        -> [StoredNotification]
    {
        throw UnsupportedStoreOperation("heldNotifications")
    }

    public func threadCount(deviceID: String, bundleID: String, threadID: String?) async throws -> Int {
        throw UnsupportedStoreOperation("threadCount")
    }

    public func appSettings(userID: String) async throws -> [String: AppNotificationSettings] {
        throw UnsupportedStoreOperation("appSettings")
    }

    public func setAppSettings(_ settings: AppNotificationSettings, userID: String, bundleID: String) async throws {
        throw UnsupportedStoreOperation("setAppSettings")
    }

    public func preferences(userID: String) async throws -> UserPreferences? {
        throw UnsupportedStoreOperation("preferences")
    }

    public func setPreferences(_ preferences: UserPreferences, userID: String) async throws {
        throw UnsupportedStoreOperation("setPreferences")
    }

    public func focusModes(userID: String) async throws -> [FocusMode] {
        throw UnsupportedStoreOperation("focusModes")
    }

    public func upsertFocusMode(_ mode: FocusMode, userID: String) async throws {
        throw UnsupportedStoreOperation("upsertFocusMode")
    }

    public func deleteFocusMode(id: String, userID: String) async throws -> Bool {
        throw UnsupportedStoreOperation("deleteFocusMode")
    }

    public func summarySchedule(userID: String) async throws -> SummarySchedule? {
        throw UnsupportedStoreOperation("summarySchedule")
    }

    public func setSummarySchedule(_ schedule: SummarySchedule, userID: String) async throws {
        throw UnsupportedStoreOperation("setSummarySchedule")
    }

    public func deviceState(deviceID: String) async throws -> DeviceState? {
        throw UnsupportedStoreOperation("deviceState")
    }

    public func setDeviceState(_ state: DeviceState, deviceID: String) async throws {
        throw UnsupportedStoreOperation("setDeviceState")
    }

    public func policyContext(deviceID: String) async throws -> PolicyContextRecord? {
        throw UnsupportedStoreOperation("policyContext")
    }

    public func recordSummaryDelivery(userID: String, slot: Date, digest: String, at date: Date) async throws -> Bool {
        throw UnsupportedStoreOperation("recordSummaryDelivery")
    }

    public func summaryCandidates(_ summaries: [(userID: String, slot: Date)]) async throws -> SummaryCandidates {
        throw UnsupportedStoreOperation("summaryCandidates")
    }

    public func releaseSummaries(_ summaries: [SummaryRelease], at date: Date) async throws -> [[ReleasedSummary]?] {
        throw UnsupportedStoreOperation("releaseSummaries")
    }

    /// None: a store that cannot release summaries has no summary events (its streams still work).
    public func summaryEvents(deviceID: String, after cursor: Int64, through last: Int64?, limit: Int) async throws
        -> [StoredSummaryEvent]
    {
        []
    }

    public func lastSummaryDelivery(userID: String) async throws -> Date? {
        throw UnsupportedStoreOperation("lastSummaryDelivery")
    }

    public func usersWithSummary() async throws -> [SummaryUserRecord] {
        throw UnsupportedStoreOperation("usersWithSummary")
    }

    public func appBadges(deviceID: String) async throws -> [AppBadgeRecord] {
        throw UnsupportedStoreOperation("appBadges")
    }

    public func upsertCategory(bundleID: String, identifier: String, json: String) async throws {
        throw UnsupportedStoreOperation("upsertCategory")
    }

    public func category(bundleID: String, identifier: String) async throws -> CategoryRecord? {
        throw UnsupportedStoreOperation("category")
    }

    public func categories(bundleID: String) async throws -> [CategoryRecord] {
        throw UnsupportedStoreOperation("categories")
    }

    public func deleteCategory(bundleID: String, identifier: String) async throws -> Bool {
        throw UnsupportedStoreOperation("deleteCategory")
    }

    public func putLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String, data: Data
    ) async throws {
        throw UnsupportedStoreOperation("putLocalizationFile")
    }

    public func localizationFiles(bundleID: String) async throws -> [LocalizationFileRecord] {
        throw UnsupportedStoreOperation("localizationFiles")
    }

    public func deleteLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String
    ) async throws -> Bool {
        throw UnsupportedStoreOperation("deleteLocalizationFile")
    }
}

extension HeraldStore {
    /// Waits on the calling thread for `insert` (a store without a blocking write). Call it from a
    /// thread of its own (`NotificationWriter`'s), never from a task: it blocks the thread.
    public func insertBlocking(_ notifications: [StoredNotification]) throws -> InsertedBatch {
        let result = BlockingResult<[StoredNotification]>()
        Task {
            do {
                await result.set(.success(try await self.insert(notifications)))
            } catch {
                await result.set(.failure(error))
            }
        }
        return InsertedBatch(changes: try result.wait())
    }
}

/// A value produced by a task, waited for on a thread.
private final class BlockingResult<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Value, any Error>?

    func set(_ result: Result<Value, any Error>) async {
        self.result = result
        done.signal()
    }

    func wait() throws -> Value {
        done.wait()
        return try result!.get()
    }
}
