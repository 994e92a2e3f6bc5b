import HeraldStore
import Logging
import Synchronization

/// The extension jobs' writes, batched: every job kept or forgotten since the last transaction goes
/// into the next one (`JobBatch`).
extension ServiceExtensionService {
    /// Keeps the job durably (in the next batch); returns once it is committed.
    func keep(_ job: ExtensionJobRecord) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            let start = jobs.withLock { batch in
                batch.adding.append((job, done))
                return Self.startDrain(&batch)
            }
            if start { Task { await drainJobs() } }
        }
    }

    /// Forgets the job (in the next batch). Lost in a crash, it only runs once more at the next start.
    func forget(_ id: String) {
        let start = jobs.withLock { batch in
            batch.removing.append(id)
            return Self.startDrain(&batch)
        }
        if start { Task { await drainJobs() } }
    }

    private static func startDrain(_ batch: inout JobBatch) -> Bool {
        guard !batch.isDraining else { return false }
        batch.isDraining = true
        return true
    }

    /// Commits what is waiting, batch after batch, until nothing is.
    private func drainJobs() async {
        while true {
            let (adding, removing) = jobs.withLock { batch in
                defer {
                    batch.adding.removeAll()
                    batch.removing.removeAll()
                }
                if batch.adding.isEmpty && batch.removing.isEmpty { batch.isDraining = false }
                return (batch.adding, batch.removing)
            }
            if adding.isEmpty && removing.isEmpty { return }
            do {
                try await store.updateExtensionJobs(adding: adding.map(\.job), removing: removing)
                for item in adding { item.done.resume() }
            } catch {
                if !removing.isEmpty {
                    logger.warning("Could not forget jobs of service extensions", metadata: ["error": "\(error)"])
                }
                // One refused job (its device was just removed) must not fail the others: one by one.
                for item in adding {
                    do {
                        try await store.updateExtensionJobs(adding: [item.job], removing: [])
                        item.done.resume()
                    } catch {
                        item.done.resume(throwing: error)
                    }
                }
            }
        }
    }
}
