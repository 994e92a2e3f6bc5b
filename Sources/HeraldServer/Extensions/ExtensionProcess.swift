import Foundation
import HeraldCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One running process of an app's service extension (an executable whose `main` runs
/// UserNotifications' `ServiceExtensionHost`): Herald writes requests to its standard input, one JSON
/// object per line, and reads its answers from its standard output. It handles one push at a time
/// (its pool hands it the next one when it answered) and keeps running between pushes.
///
/// What the process does wrong ends it: an answer line over `maximumLineBytes`, a resident memory
/// over its limit (read from `/proc/<pid>/status` every 50 ms while it works on a push), no answer
/// even after `serviceExtensionTimeWillExpire()`. Its standard error goes to Herald's.
///
/// It has a temporary directory of its own (its `TMPDIR`, made under Herald's), removed once it has
/// exited: what it downloads for its pushes does not outlive it — an extension's files that Herald
/// never took (an answer after its deadline) included — as the system empties an extension's
/// container on Apple's platforms.
final class ExtensionProcess: @unchecked Sendable {
    /// What waiting for an answer gave.
    enum Event: Sendable {
        /// The answer to the request (`{"type": "content" | "error", …}`).
        case answer([String: JSONValue])
        /// The process ended (why, in words).
        case exited(String)
        /// The deadline passed first.
        case deadline
    }

    /// An answer line longer than this ends the process (a content is a few KiB).
    static let maximumLineBytes = 1 << 20

    private struct State {
        var waiting: (id: String, continuation: CheckedContinuation<Event, Never>)?
        var timer: Task<Void, Never>?
        var answers: [String: [String: JSONValue]] = [:]
        var exit: String?
        var killReason: String?
    }

    let pid: Int32
    /// Its `TMPDIR`, removed once it has exited.
    let temporaryDirectory: URL
    private let process: Process
    private let input: FileHandle
    private let memoryLimit: Int
    private let state = Mutex(State())

    /// Starts the executable; throws when it cannot be started.
    init(executable: String, arguments: [String], environment: [String: String], memoryLimit: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let temporary = try Self.makeTemporaryDirectory()
        temporaryDirectory = temporary
        var environment = environment
        environment["TMPDIR"] = temporary.path
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        self.process = process
        self.input = stdin.fileHandleForWriting
        self.memoryLimit = memoryLimit
        // Whichever handler sees the exit removes the directory (this one, if it comes before the next).
        process.terminationHandler = { _ in try? FileManager.default.removeItem(at: temporary) }
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        pid = process.processIdentifier
        try? stdin.fileHandleForReading.close()
        let output = stdout.fileHandleForReading
        try? stdout.fileHandleForWriting.close()
        process.terminationHandler = { [weak self] process in
            try? FileManager.default.removeItem(at: temporary)
            let why =
                process.terminationReason == .uncaughtSignal
                ? "was killed by signal \(process.terminationStatus)"
                : "exited with status \(process.terminationStatus)"
            self?.ended(why)
        }
        let reader = Thread { [weak self] in
            // Named from the thread itself, in at most 15 bytes: on Linux a name set before `start()`,
            // or a longer one, is not the system thread's.
            Thread.current.name = "herald-ext-out"
            Self.read(output, into: self)
        }
        reader.start()
    }

    var isRunning: Bool { state.withLock { $0.exit == nil } }

    /// A new directory `herald-extension-XXXXXX` in Herald's temporary directory, for this process only
    /// (0700, `mkdtemp`).
    private static func makeTemporaryDirectory() throws -> URL {
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("herald-extension-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp: errno \(errno)"])
        }
        return URL(fileURLWithPath: String(cString: template), isDirectory: true)
    }

    /// Writes one message (a JSON object) as a line; false when the process no longer reads.
    @discardableResult
    func send(_ message: JSONValue) -> Bool {
        guard var data = try? JSONEncoder().encode(message) else { return false }
        data.append(UInt8(ascii: "\n"))
        do {
            try input.write(contentsOf: data)
            return true
        } catch {
            return false
        }
    }

    /// Waits for the answer to request `id` until `deadline`, watching the process's memory.
    func answer(to id: String, until deadline: ContinuousClock.Instant) async -> Event {
        let watch = Task { [self] in
            while !Task.isCancelled {
                checkMemory()
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { watch.cancel() }
        return await withCheckedContinuation { continuation in
            state.withLock { state in
                if let answer = state.answers.removeValue(forKey: id) {
                    continuation.resume(returning: .answer(answer))
                } else if let exit = state.exit {
                    continuation.resume(returning: .exited(exit))
                } else {
                    state.waiting = (id, continuation)
                    state.timer = Task { [self] in
                        guard (try? await Task.sleep(until: deadline)) != nil else { return }
                        resume(id: id, with: .deadline)
                    }
                }
            }
        }
    }

    /// Forgets answers to requests nobody waits for any more (given after their deadline).
    func dropLateAnswers() {
        state.withLock { $0.answers.removeAll() }
    }

    /// Ends the process: closes its input (the host exits at the end of it), and kills it if it is
    /// still running a second later.
    func stop() {
        try? input.close()
        let pid = pid
        Task { [self] in
            try? await Task.sleep(for: .seconds(1))
            if isRunning { Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Kills it now, saying why.
    func kill(because reason: String) {
        state.withLock { if $0.killReason == nil { $0.killReason = reason } }
        try? input.close()
        Glibc.kill(pid, SIGKILL)
    }

    private func resume(id: String, with event: Event) {
        let waiting: CheckedContinuation<Event, Never>? = state.withLock { state in
            guard let waiting = state.waiting, waiting.id == id else { return nil }
            state.waiting = nil
            state.timer?.cancel()
            state.timer = nil
            return waiting.continuation
        }
        waiting?.resume(returning: event)
    }

    private func received(_ answer: [String: JSONValue]) {
        guard let id = answer["id"]?.stringValue else { return }
        let waiting: CheckedContinuation<Event, Never>? = state.withLock { state in
            guard let waiting = state.waiting, waiting.id == id else {
                if state.answers.count < 16 { state.answers[id] = answer }
                return nil
            }
            state.waiting = nil
            state.timer?.cancel()
            state.timer = nil
            return waiting.continuation
        }
        waiting?.resume(returning: .answer(answer))
    }

    /// The process ended (its first report counts: the termination handler's, else the closed
    /// output's). Its temporary directory goes with it (the termination handler removed it already
    /// when it ran).
    private func ended(_ why: String) {
        try? FileManager.default.removeItem(at: temporaryDirectory)
        let (waiting, reason): (CheckedContinuation<Event, Never>?, String) = state.withLock { state in
            if let known = state.exit { return (nil, known) }
            let reason = state.killReason ?? why
            state.exit = reason
            let waiting = state.waiting?.continuation
            state.waiting = nil
            state.timer?.cancel()
            state.timer = nil
            return (waiting, reason)
        }
        waiting?.resume(returning: .exited(reason))
    }

    private func checkMemory() {
        guard let resident = Self.residentBytes(pid: pid), resident > memoryLimit else { return }
        kill(
            because:
                "used \(resident >> 20) MiB of memory, over its limit of \(memoryLimit >> 20) MiB")
    }

    /// VmRSS of `/proc/<pid>/status`, in bytes.
    static func residentBytes(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.dropFirst("VmRSS:".count).split(whereSeparator: \.isWhitespace).first.flatMap {
                Int($0)
            }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }

    /// The reading thread: splits the output into lines and hands each JSON object to `process`.
    private static func read(_ output: FileHandle, into process: ExtensionProcess?) {
        var buffer: [UInt8] = []
        while true {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffer.append(contentsOf: chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if let object = try? JSONParser.parse(line).objectValue { process?.received(object) }
            }
            if buffer.count > maximumLineBytes {
                process?.kill(because: "wrote an answer over \(maximumLineBytes >> 20) MiB")
                break
            }
        }
        try? output.close()
        // Its output closed: it has exited (or can answer nothing more). Foundation's termination
        // handler says how, and usually comes first; it may never come when someone else in the
        // process reaps the child (a waitid on any child — Swift Testing's exit-test monitor does),
        // so after a moment the closed output counts as the end.
        Thread.sleep(forTimeInterval: 0.5)
        process?.ended("exited (its output closed)")
    }
}
