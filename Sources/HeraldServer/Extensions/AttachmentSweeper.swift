import Foundation
import HeraldStore
import Logging
import ServiceLifecycle

/// Frees the attachments nothing shows any more: the notification that showed one was removed
/// (or replaced), the pending request that named it was removed or fired for the last time, or it
/// was uploaded an hour ago and never used. The file goes first, then the record (a crash between
/// leaves a record whose file is gone: the next pass removes it). Runs every 10 s on the wall clock.
public final class AttachmentSweeper: Service, Sendable {
    /// How long an uploaded attachment may wait to be used.
    public static let unusedGrace: TimeInterval = 3600
    static let interval: Duration = .seconds(10)

    private let store: any HeraldStore
    private let directory: URL
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(store: any HeraldStore, directory: URL, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.directory = directory
        self.now = now
        self.logger = logger
    }

    public func run() async throws {
        try await runUntilGracefulShutdown {
            while !Task.isCancelled {
                do {
                    _ = try await self.sweep()
                } catch {
                    self.logger.warning("Could not free unused attachments", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }

    /// One pass: frees every unused attachment; returns their ids.
    @discardableResult
    public func sweep() async throws -> [String] {
        var freed: [String] = []
        while true {
            let unused = try await store.unusedAttachments(
                unlinkedBefore: now().addingTimeInterval(-Self.unusedGrace), limit: 256)
            guard !unused.isEmpty else { return freed }
            for record in unused {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(record.id))
            }
            try await store.removeAttachments(ids: unused.map(\.id))
            freed += unused.map(\.id)
        }
    }
}
