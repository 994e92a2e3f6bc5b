import Foundation
import HeraldCore
import HeraldPolicy
import ServiceLifecycle

/// Herald's storage, as one protocol made of nine: the registry (`RegistryStore`), the devices'
/// notification lists with their change feed and badges (`NotificationListStore`), decisions
/// (`DecisionStore`), the user-side state of the delivery policy (`UserStateStore`), Scheduled
/// Summary deliveries (`SummaryStore`), and the apps' categories and localization files
/// (`AppResourceStore`), apps' local notifications (`LocalNotificationStore`), and apps' service
/// extensions with the pushes waiting for them (`ServiceExtensionStore`), and the attachments they show
/// (`AttachmentStore`). None of them has a default implementation: a store that misses a
/// requirement does not compile. A part of Herald that needs only one of them takes only that one.
///
/// Implementations: `SQLiteStore` (GRDB, WAL) is the embedded default. Nothing here is
/// SQLite-specific; every store must pass the contract suite of `Tests/HeraldStoreTests` (add the
/// engine to `StoreEngine` there).
public protocol HeraldStore: RegistryStore, NotificationListStore, DecisionStore, UserStateStore, SummaryStore,
    AppResourceStore, LocalNotificationStore, ServiceExtensionStore, AttachmentStore
{
    /// Work the store does in the background while the server runs (SQLite: checkpoints of its
    /// write-ahead log); the application runs them in its ServiceGroup. Empty when there is none.
    var backgroundServices: [any Service] { get }

    /// Closes the database cleanly (checkpoint, release files). Call it after the services stopped.
    func close() async throws
}

/// Teams, signing keys, apps, users, devices and device tokens.
public protocol RegistryStore: Sendable {
    /// Everything the APNs endpoint validates against, loaded at start-up.
    func registrySnapshot() async throws -> RegistrySnapshot

    /// Adds a team; `conflict` when the team id exists.
    func createTeam(_ team: Team) async throws
    func teams() async throws -> [Team]
    /// Adds a signing key; `conflict` when the key id exists, `notFound` when the team doesn't.
    func createKey(_ key: SigningKey) async throws
    func keys() async throws -> [SigningKey]
    /// Adds an app; `conflict` when the bundle id exists, `notFound` when the team doesn't.
    func createApp(_ app: App) async throws
    func apps() async throws -> [App]
    /// Adds a user with the SHA-256 hex digest of its bearer token.
    func createUser(_ user: User, tokenDigest: String) async throws
    func users() async throws -> [User]
    /// The user whose bearer token has this SHA-256 hex digest.
    func user(tokenDigest: String) async throws -> User?
    /// Adds a device; `notFound` when the user doesn't exist.
    func createDevice(_ device: Device) async throws
    func device(id: String) async throws -> Device?
    func devices(userID: String?) async throws -> [Device]
    /// Registers a device token. A device has one live token per app: an earlier live token of the
    /// same device and app is unregistered (kept as a tombstone) in the same transaction; returns it.
    /// `conflict` when the token exists, `notFound` when the device or app doesn't.
    @discardableResult
    func createDeviceToken(_ record: DeviceTokenRecord) async throws -> DeviceTokenRecord?
    /// Unregisters a token (it stays as a tombstone); nil when unknown. Unregistering twice keeps the first time.
    func unregisterDeviceToken(_ token: String, at date: Date) async throws -> DeviceTokenRecord?
    func deviceTokens(deviceID: String?) async throws -> [DeviceTokenRecord]
    /// One device token's record (a tombstone too); nil when unknown.
    func deviceToken(_ token: String) async throws -> DeviceTokenRecord?
}

/// The devices' notification lists: commits (group commit), the change feed, reads, read/dismiss/
/// remove, delivery marks, thread counts and app badges.
public protocol NotificationListStore: Sendable {
    /// Commits a batch of new notifications in ONE transaction (group commit) and returns every
    /// change it made, in `seq` order: tombstones of notifications replaced through a collapse id
    /// first, then each new row. A notification whose id is already in the device's list replaces
    /// that entry (a provider's retry does not duplicate it). Returns only after the data is durable.
    func insert(_ notifications: [StoredNotification]) async throws -> [StoredNotification]
    /// `insert`, on the calling thread: returns once the batch is durable, with what the rows need
    /// (`InsertedBatch.changes(of:)` makes `insert`'s result). `NotificationWriter`'s thread commits
    /// with it, so a group commit does not hop between threads. A store without a blocking write
    /// can wait for its `insert` with `InsertedBatch.waiting(for:)`.
    func insertBlocking(_ notifications: [StoredNotification]) throws -> InsertedBatch
    /// The device's changes after `cursor`, in `seq` order, tombstones included, undeliverable ones
    /// (expired before any session got them) left out.
    func changes(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws -> [StoredNotification]
    /// The device's list (no tombstones, no undeliverable ones) after `cursor`, in `seq` order.
    func notifications(deviceID: String, after cursor: Int64, limit: Int, now: Date) async throws
        -> [StoredNotification]
    /// One notification of the device (no tombstones).
    func notification(deviceID: String, id: String) async throws -> StoredNotification?
    /// Marks a notification read (new seq); nil when there is no such notification.
    func markRead(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Marks a notification dismissed (new seq); nil when there is no such notification.
    func dismiss(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Removes a notification, leaving a tombstone (new seq); nil when there is no such notification.
    func remove(deviceID: String, id: String, at date: Date) async throws -> StoredNotification?
    /// Records that a session received every deliverable notification of the device up to `cursor`.
    func markDelivered(deviceID: String, upTo cursor: Int64, at date: Date) async throws
    /// The largest `seq` so far (0 when empty).
    func latestCursor() async throws -> Int64

    /// The notifications in one thread of the device's list: the app's live notifications (not
    /// removed, not `notDelivered`) with this `thread-id`, or without one when `threadID` is nil (an
    /// empty `thread-id` is no thread). Read and dismissed ones count; held ones too.
    func threadCount(deviceID: String, bundleID: String, threadID: String?) async throws -> Int

    /// The app badges of the device (apps whose badge a push set, 0 included), by bundle id. Written
    /// with the notification that sets them (see `AppBadgeRecord`); nothing else changes them.
    func appBadges(deviceID: String) async throws -> [AppBadgeRecord]
}

/// Decisions of stored notifications. A notification's decision is a `DecisionRecord` (nil until
/// decided); `insert` stores what the notifications carry.
public protocol DecisionStore: Sendable {

    /// Sets the decision of the device's live notification with a new seq (the stream shows it);
    /// nil when there is no such notification (tombstones included). A decision equal to the stored
    /// one (and the same release time) changes nothing and returns the row as it is. `releasedAt` is
    /// stored as given (nil clears it); `date` is the instant of the change, which the row does not
    /// record separately. A decision that starts applying the badge (`AppBadgeRule`) sets the app's badge.
    func updateDecision(
        deviceID: String, id: String, decision: DecisionRecord, releasedAt: Date?, at date: Date
    ) async throws -> StoredNotification?
    /// The live notifications of these devices whose disposition is one of `dispositions`, oldest
    /// (by arrival) first. `invalid` unless every disposition is a held one (`heldForFocus`,
    /// `heldForSummary`).
    func heldNotifications(deviceIDs: [String], dispositions: Set<Disposition>) async throws -> [StoredNotification]
    /// How many live notifications of all devices are held, by held disposition (both always
    /// present, 0 when none): what the metrics show.
    func heldNotificationCounts() async throws -> [Disposition: Int]
    /// The users with a Focus mode or a held notification (on any device), sorted: the ones a
    /// Focus change can concern, which the Focus service checks at start-up (not every user).
    func usersWithFocusOrHeld() async throws -> [String]
}

/// The user-side state of the delivery policy, shared by all devices of a user, and each device's
/// state. Setting a value for an unknown user, app or device is `notFound`.
public protocol UserStateStore: Sendable {
    /// The user's per-app notification settings, by bundle id (only the apps they were set for).
    func appSettings(userID: String) async throws -> [String: AppNotificationSettings]
    /// Replaces the user's settings for one app.
    func setAppSettings(_ settings: AppNotificationSettings, userID: String, bundleID: String) async throws
    /// The user's preferences; nil until set.
    func preferences(userID: String) async throws -> UserPreferences?
    func setPreferences(_ preferences: UserPreferences, userID: String) async throws
    /// The user's Focus modes in the order they were added.
    func focusModes(userID: String) async throws -> [FocusMode]
    /// Adds a Focus mode (at the end), or replaces the one with its id (keeping its place).
    /// `invalid` when its id is empty.
    func upsertFocusMode(_ mode: FocusMode, userID: String) async throws
    /// Deletes a Focus mode; false when the user has none with that id.
    func deleteFocusMode(id: String, userID: String) async throws -> Bool
    /// The user's Scheduled Summary; nil until set.
    func summarySchedule(userID: String) async throws -> SummarySchedule?
    func setSummarySchedule(_ schedule: SummarySchedule, userID: String) async throws
    /// The device's state; nil until set.
    func deviceState(deviceID: String) async throws -> DeviceState?
    func setDeviceState(_ state: DeviceState, deviceID: String) async throws
    /// Everything the delivery policy needs for the device, read in one transaction; nil when there
    /// is no such device.
    func policyContext(deviceID: String) async throws -> PolicyContextRecord?
}

/// Scheduled Summary deliveries.
///
/// A summary time (slot) of a user is delivered exactly once, across restarts: the delivery is
/// recorded in the transaction that writes its releases. A release does not rewrite the
/// notifications it releases: every read (`changes`, `notifications`, `notification`,
/// `heldNotifications`) shows a notification the release covers as released — disposition
/// `listedSilently`, reason `summary-delivered`, `context.summary` in the decision, `releasedAt` —
/// and the device's change feed gets the release as one summary event (`summaryEvents`).
public protocol SummaryStore: Sendable {
    /// Records the user's summary for `slot` as delivered, releasing nothing; false (and nothing
    /// changes) when it was delivered already. `notFound` for an unknown user, `invalid` when the
    /// digest is not JSON.
    func recordSummaryDelivery(userID: String, slot: Date, digest: String, at date: Date) async throws -> Bool
    /// What each user's summary for its slot would release, read in one transaction with its horizon;
    /// in the order of `summaries`, each user's oldest (by arrival) first.
    func summaryCandidates(_ summaries: [(userID: String, slot: Date)]) async throws -> SummaryCandidates
    /// Records each summary and its device releases (each with a new seq) in ONE transaction: the
    /// notifications of each device held for the summary, arrived by the slot and committed by the
    /// horizon, are released at `date`. Per summary, the device events in order, or nil (and nothing
    /// changes for it) when its slot was delivered already. `invalid` when a summary names a device
    /// of another user.
    func releaseSummaries(_ summaries: [SummaryRelease], at date: Date) async throws -> [[ReleasedSummary]?]
    /// The device's summary events after `cursor` (and up to `last`, when given), in seq order.
    func summaryEvents(deviceID: String, after cursor: Int64, through last: Int64?, limit: Int) async throws
        -> [StoredSummaryEvent]
    /// The slot of the latest summary delivered to the user; nil when none was.
    func lastSummaryDelivery(userID: String) async throws -> Date?
    /// The users whose Scheduled Summary is on (it has a time), by user id.
    func usersWithSummary() async throws -> [SummaryUserRecord]
}

/// The apps' categories and localization files. For an unknown app, writes are `notFound` and reads
/// are empty.
public protocol AppResourceStore: Sendable {
    /// Adds or replaces the app's category `identifier`; `invalid` when the JSON is not an object
    /// or the identifier is empty.
    func upsertCategory(bundleID: String, identifier: String, json: String) async throws
    /// The app's category `identifier` as JSON; nil when it has none.
    func category(bundleID: String, identifier: String) async throws -> CategoryRecord?
    /// The app's categories, by identifier.
    func categories(bundleID: String) async throws -> [CategoryRecord]
    /// Replaces the app's categories with these (identifier, JSON) in one transaction: the app's
    /// other categories are deleted. `invalid` as `upsertCategory`; `notFound` for an unknown app.
    func replaceCategories(bundleID: String, _ categories: [(identifier: String, json: String)]) async throws
    /// Deletes a category; false when the app has none with that identifier.
    func deleteCategory(bundleID: String, identifier: String) async throws -> Bool
    /// Adds or replaces a localization file (same app, locale, kind and name). `invalid` when the name
    /// is empty, or the locale is empty for a `.strings` or `.stringsdict` file.
    func putLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String, data: Data
    ) async throws
    /// The app's localization files, by locale, kind and name.
    func localizationFiles(bundleID: String) async throws -> [LocalizationFileRecord]
    /// Deletes a localization file; false when there is no such file.
    func deleteLocalizationFile(
        bundleID: String, locale: String, kind: LocalizationFileKind, name: String
    ) async throws -> Bool
    /// Sets the app's icon (replacing one it had); `invalid` when the type or the data is empty.
    func putAppIcon(_ icon: AppIconRecord) async throws
    /// The app's icon; nil when it has none.
    func appIcon(bundleID: String) async throws -> AppIconRecord?
    /// Removes the app's icon; false when it had none.
    func deleteAppIcon(bundleID: String) async throws -> Bool
    /// Sets the app's web content extension (replacing one it had); `invalid` when the options are
    /// not JSON or the HTML is empty, `notFound` for an unknown app.
    func putContentExtension(_ record: ContentExtensionRecord) async throws
    /// The app's content extension; nil when it has none.
    func contentExtension(bundleID: String) async throws -> ContentExtensionRecord?
    /// Every app's content extension, by bundle id.
    func contentExtensions() async throws -> [ContentExtensionRecord]
    /// Removes the app's content extension; false when it had none.
    func deleteContentExtension(bundleID: String) async throws -> Bool
}

/// What apps on devices do through `UNUserNotificationCenter`: their credentials, their pending local
/// notification requests (the trigger scheduler's queue), and the delivery of local notifications
/// into the device's list.
public protocol LocalNotificationStore: Sendable {
    /// Adds an app credential (the SHA-256 hex digest of its bearer token) for the app on the device;
    /// `notFound` when the device or the app does not exist, `conflict` when the digest is taken.
    func createAppCredential(_ record: AppCredentialRecord, tokenDigest: String) async throws
    /// The credential whose bearer token has this digest.
    func appCredential(tokenDigest: String) async throws -> AppCredentialRecord?

    /// Adds a pending request, replacing the app's pending request with the same identifier (the new
    /// one is the most recently added). The app keeps at most `limit` pending requests: the oldest
    /// added beyond it are removed in the same transaction. Returns the request as stored (with its
    /// revision) and the identifiers removed for the limit. `notFound` for an unknown device or app.
    func addLocalRequest(_ request: LocalRequestRecord, limit: Int) async throws -> (
        stored: LocalRequestRecord, dropped: [String]
    )
    /// The app's pending requests on the device, oldest added first.
    func localRequests(deviceID: String, bundleID: String) async throws -> [LocalRequestRecord]
    /// Removes the app's pending requests with these identifiers (all of them when nil); returns the
    /// identifiers removed.
    func removeLocalRequests(deviceID: String, bundleID: String, identifiers: [String]?) async throws -> [String]
    /// Pending requests of every device due at or before `date`, earliest first.
    func dueLocalRequests(through date: Date, limit: Int) async throws -> [LocalRequestRecord]
    /// The earliest fire date of any pending request; nil when none will fire.
    func nextLocalRequestFireDate() async throws -> Date?
    /// The device's pending requests of every app whose trigger is a location trigger, oldest added first.
    func locationRequests(deviceID: String) async throws -> [LocalRequestRecord]

    /// Puts local notifications into their devices' lists in ONE transaction, with the changes to
    /// their pending requests (a fired one advances to its next fire date, stays when it
    /// `keepsRequest`, or is removed; one added
    /// without a trigger removes the pending request it replaces), so a request fires exactly once
    /// per fire date across restarts. A delivery whose fired revision is no longer pending (removed or
    /// replaced since it was read) is skipped. Returns the changes in seq order, as `insert` does.
    func deliverLocal(_ deliveries: [LocalDelivery]) async throws -> [StoredNotification]

    /// The app's notifications in the device's list as the app sees them (delivered, in Notification
    /// Center: not removed, not dismissed, not `notDelivered`), oldest first, with their identifiers.
    func appNotifications(deviceID: String, bundleID: String) async throws -> [AppNotificationRecord]
    /// Removes the app's notifications with these identifiers (all of them when nil) from the device's
    /// list, leaving tombstones (new seqs); returns them in seq order.
    func removeAppNotifications(deviceID: String, bundleID: String, identifiers: [String]?, at date: Date)
        async throws -> [AppNotificationRecord]
    /// Sets the app's badge on the device (`setBadgeCount`; 0 clears it).
    func setAppBadge(deviceID: String, bundleID: String, badge: Int) async throws

    /// Asks for the app's authorization, in one transaction: the person's settings for the app when
    /// they already answered (a status other than `notDetermined`); else the request still pending for
    /// the app and the user (one at a time, whichever device asked); else, when `provisional`, the
    /// settings made provisional (granted quietly, no request); else `request` stored as pending, with
    /// the app's settings set to `notDetermined` (nothing is delivered until the person answers).
    func askAuthorization(_ request: AuthorizationRequestRecord, provisional: Bool) async throws
        -> AuthorizationOutcome
    /// One authorization request (pending or answered).
    func authorizationRequest(id: String) async throws -> AuthorizationRequestRecord?
    /// The device's pending authorization requests, oldest first.
    func pendingAuthorizationRequests(deviceID: String) async throws -> [AuthorizationRequestRecord]
    /// Answers a pending request and sets the app's settings to `settings`, in one transaction; the
    /// request as answered, or nil when there is no pending request with this id (unknown or
    /// answered already: an answer is given once).
    func answerAuthorizationRequest(id: String, granted: Bool, settings: AppNotificationSettings, at date: Date)
        async throws -> AuthorizationRequestRecord?

    /// Stores a person's response (durably, before it is acknowledged to them) and, when the app has
    /// a webhook, its delivery with `webhookBody`, due at once — in one transaction; `notFound` for an
    /// unknown device or app.
    func recordResponse(_ response: NotificationResponseRecord, webhookBody: String) async throws
    /// Takes the app's responses on the device that no connection took yet, oldest first, marking
    /// them delivered at `date` in the same transaction: each response is handed out at most once.
    func claimResponses(deviceID: String, bundleID: String, limit: Int, at date: Date) async throws
        -> [NotificationResponseRecord]

    /// Stores an interaction the app donated, replacing the app's earlier one with its identifier for
    /// the user; `notFound` for an unknown user, app or device.
    func donateInteraction(_ interaction: InteractionRecord) async throws
    /// The app's donated interactions for the user, oldest donated first.
    func interactions(userID: String, bundleID: String) async throws -> [InteractionRecord]
    /// The user's donated interactions of every app in one direction, the `limit` most recently
    /// donated, newest first.
    func interactions(userID: String, direction: InteractionRecord.Direction, limit: Int) async throws
        -> [InteractionRecord]
    /// Deletes the app's interactions for the user: those with these identifiers, or in this group,
    /// or (both nil) all of them; returns how many.
    func deleteInteractions(userID: String, bundleID: String, identifiers: [String]?, groupIdentifier: String?)
        async throws -> Int

    /// Sets the app's webhook (replacing its url and secret: deliveries still pending go to the new
    /// one); `notFound` for an unknown app.
    func setAppWebhook(_ webhook: AppWebhookRecord) async throws
    /// The app's webhook and how its deliveries stand; nil when it has none.
    func appWebhook(bundleID: String) async throws -> (webhook: AppWebhookRecord, status: WebhookStatus)?
    /// Removes the app's webhook and drops its pending deliveries; false when it had none.
    func removeAppWebhook(bundleID: String) async throws -> Bool
    /// Claims the deliveries not acknowledged yet whose next attempt is due at or before `date`,
    /// earliest first: their next attempt moves to `leaseEnd`, so that no other node — and no later
    /// pass — attempts them meanwhile (each is claimed by one caller only, also by two nodes at once).
    /// The attempt then records its outcome (`webhookDelivered`, `webhookFailed`); one that records
    /// nothing (its node died) is attempted again once the lease ends.
    func claimDueWebhookDeliveries(through date: Date, leaseEnd: Date, limit: Int) async throws -> [WebhookDelivery]
    /// Gives up the claims of deliveries `ids` not attempted to the end (a node that stops): due at
    /// `date`, whoever claims them next.
    func releaseWebhookClaims(ids: [String], at date: Date) async throws
    /// The earliest next attempt of any pending delivery; nil when none waits.
    func nextWebhookAttempt() async throws -> Date?
    /// The webhook acknowledged delivery `id` at `date`: it is not sent again.
    func webhookDelivered(id: String, at date: Date) async throws
    /// An attempt of delivery `id` failed at `date` with `error`: tried again at `nextAttemptAt`.
    func webhookFailed(id: String, error: String, at date: Date, nextAttemptAt: Date) async throws
}

/// Apps' notification service extensions, and the pushes accepted for them that are not shown yet.
public protocol ServiceExtensionStore: Sendable {
    /// Sets the app's extension (replacing the one it had); `notFound` for an unknown app.
    func setServiceExtension(_ record: ServiceExtensionRecord) async throws
    /// Every app's extension.
    func serviceExtensions() async throws -> [ServiceExtensionRecord]
    /// Removes the app's extension; false when it had none. Pushes waiting for it still run it (they
    /// were accepted with it) or, when it is gone, are shown as sent.
    func removeServiceExtension(bundleID: String) async throws -> Bool
    /// Keeps an accepted push until it is shown (durable when this returns).
    func addExtensionJob(_ job: ExtensionJobRecord) async throws
    /// The pushes still waiting (after a restart: the ones to run again), oldest first.
    func extensionJobs(limit: Int) async throws -> [ExtensionJobRecord]
    /// Claims the waiting pushes whose claim ended at or before `date` (`claimedUntil`), oldest first:
    /// they are the caller's until `leaseEnd`, and no one else's meanwhile (each is claimed by one
    /// caller only, also by two nodes at once). A node that died with jobs leaves them to the others
    /// once their claims end.
    func claimExtensionJobs(through date: Date, leaseEnd: Date, limit: Int) async throws -> [ExtensionJobRecord]
    /// Extends the claims of the jobs `ids` (the ones still running) to `leaseEnd`; the distant past
    /// gives them up (a node that stops).
    func renewExtensionJobs(ids: [String], leaseEnd: Date) async throws
    /// The push is in the device's list: forget it.
    func removeExtensionJob(id: String) async throws
    /// Keeps `adding` and forgets `removing` in one transaction (the extensions service batches the
    /// jobs of many pushes, as the group commit batches notifications).
    func updateExtensionJobs(adding: [ExtensionJobRecord], removing: [String]) async throws
}

/// The files notifications show: kept per app within a quota, linked to the notifications and
/// pending requests that show them, freed (by the caller, file first) when nothing does.
public protocol AttachmentStore: Sendable {
    /// Keeps an attachment's record; `conflict` when the app's attachments would then take more than
    /// `quota` bytes, `notFound` for an unknown app or device. The caller has written its file.
    func addAttachment(_ record: AttachmentRecord, quota: Int) async throws
    /// The attachments with these ids (unknown ids left out).
    func attachments(ids: [String]) async throws -> [AttachmentRecord]
    /// Marks attachments as shown by something (a notification, a pending request): from then on
    /// they are freed as soon as nothing shows them.
    func linkAttachments(ids: [String], at date: Date) async throws
    /// Attachments nothing shows — no live notification of their device, no pending request of
    /// their app — that were linked once, or were given before `unlinkedBefore` and never linked.
    func unusedAttachments(unlinkedBefore: Date, limit: Int) async throws -> [AttachmentRecord]
    /// Forgets the records (their files are gone).
    func removeAttachments(ids: [String]) async throws
    /// The bytes the app's attachments take.
    func attachmentBytes(bundleID: String) async throws -> Int
}
