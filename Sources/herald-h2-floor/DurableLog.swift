import Dispatch
import Foundation
import HeraldCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The least a durable answer costs: a group commit that writes each request's record to a file and
/// syncs it (`fdatasync`) before the request is answered — what any server that stores a push before
/// its 200 must at least do, with nothing of Herald's store (no SQLite, no rows, no indexes).
///
/// Shaped like Herald's `NotificationWriter`: one thread takes everything queued, writes it with one
/// `pwrite`, syncs, answers the batch and takes the next at once; an enqueue that finds the queue
/// empty wakes it. The file is written in full once at the start and then overwritten as a ring, as
/// SQLite's write-ahead log is once it has reached its size (Herald restarts it at 32 MiB): a sync
/// then flushes data only, not the file's size or new extents.
final class DurableLog: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let descriptor: Int32
    private let recordBytes: Int
    private let ringBytes: Int

    /// A log at `path` (created or overwritten, `ringBytes` long) that writes `recordBytes` a request.
    init(path: String, recordBytes: Int, ringBytes: Int = 32 << 20) throws {
        precondition(recordBytes > 0 && ringBytes >= recordBytes)
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DurableLogError("open \(path)", errno) }
        self.recordBytes = recordBytes
        self.ringBytes = ringBytes
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        while written < ringBytes {
            let count = zeros.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress, min($0.count, ringBytes - written), off_t(written))
            }
            guard count > 0 else { throw DurableLogError("write \(path)", errno) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw DurableLogError("fsync \(path)", errno) }
    }

    /// Starts the commit thread.
    func start() {
        let thread = Thread { [self] in
            Thread.current.name = "herald-writer"
            run()
        }
        thread.start()
    }

    /// Calls `answer` once the request's record is written and synced, from the commit thread.
    func append(_ answer: @escaping @Sendable () -> Void) {
        let wasEmpty = state.withLock { state in
            state.waiting.append(answer)
            return state.waiting.count == 1
        }
        if wasEmpty { wake.signal() }
    }

    private func run() {
        var offset = 0
        var buffer = [UInt8](repeating: 0x2A, count: recordBytes * 64)
        while true {
            let batch = state.withLock { state in
                defer { state.waiting = [] }
                return state.waiting
            }
            if batch.isEmpty {
                wake.wait()
                continue
            }
            let bytes = batch.count * recordBytes
            if buffer.count < bytes { buffer = [UInt8](repeating: 0x2A, count: bytes) }
            var done = 0
            while done < bytes {
                if offset == ringBytes { offset = 0 }
                let part = min(bytes - done, ringBytes - offset)
                let count = buffer.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, part, off_t(offset)) }
                precondition(count > 0, "herald-h2-floor: the durable log's write failed (errno \(errno))")
                done += count
                offset += count
            }
            precondition(fdatasync(descriptor) == 0, "herald-h2-floor: the durable log's sync failed (errno \(errno))")
            for answer in batch { answer() }
        }
    }
}

struct DurableLogError: Error, CustomStringConvertible {
    let description: String
    init(_ what: String, _ code: Int32) {
        description = "herald-h2-floor: \(what): \(String(cString: strerror(code)))"
    }
}
