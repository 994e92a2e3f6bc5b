import Foundation
import HeraldCore
import HeraldPolicy
import HeraldStore

/// What an extension made of one push.
struct ExtensionAnswer: Sendable {
    enum Result: Sendable {
        /// Content, and the content it was given (`expired`: given only after its time was up).
        case content(JSONValue, original: JSONValue, expired: Bool)
        /// A payload and the files to attach (a webhook's answer — a webhook has no second chance).
        case payload(JSONValue, files: [File])
        /// Nothing in time, even after `serviceExtensionTimeWillExpire()`.
        case timedOut
        /// It failed (why, in words).
        case failed(String)
    }

    /// A file a webhook's answer attaches: its bytes, kept as an upload is.
    struct File: Sendable, Hashable {
        var identifier: String
        var data: Data
        var typeHint: String?
        var thumbnailHidden: Bool
    }

    var result: Result
    var milliseconds: Int
}

/// One push handed to an extension.
struct ExtensionRequest: Sendable {
    var id: String
    var identifier: String
    var deviceID: String
    var payload: JSONValue
    var receivedAt: Date
    /// Where the extension's UserNotifications and Intents reach Herald as the app on the device.
    var apiURL: String?
    var credential: String?
}

/// The processes of one app's extension: at most `processes` run at once, each on one push; a push
/// waits for a free one (at most `maximumWaiting` wait: past that, a push is shown as sent at once,
/// so a flood cannot hold unbounded memory), and an idle process is kept for the next push.
actor ExtensionPool {
    /// After `serviceExtensionTimeWillExpire()`, how long the extension has to call the handler.
    static let expiryGrace: Duration = .seconds(2)
    static let maximumWaiting = 10_000

    private(set) var record: ServiceExtensionRecord
    private var idle: [ExtensionProcess] = []
    private var running = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var stopped = false
    private let environment: [String: String]
    /// POSTs a webhook extension's request: the status and body, or nil when no answer came in time.
    private let post:
        @Sendable (_ url: String, _ body: Data, _ headers: [(String, String)], _ timeout: Duration) async -> (
            Int, Data
        )?
    /// Processes started since the pool began (for tests and the benchmark).
    private(set) var started = 0

    init(
        record: ServiceExtensionRecord, environment: [String: String],
        post:
            @escaping @Sendable (_ url: String, _ body: Data, _ headers: [(String, String)], _ timeout: Duration) async
            -> (Int, Data)?
    ) {
        self.record = record
        self.environment = environment
        self.post = post
    }

    /// A new registration: processes of the old one end once idle.
    func update(_ record: ServiceExtensionRecord) {
        guard record != self.record else { return }
        self.record = record
        for process in idle { process.stop() }
        idle.removeAll()
    }

    func stop() {
        stopped = true
        for process in idle { process.stop() }
        idle.removeAll()
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    var processCount: Int { running + idle.count }

    func run(_ request: ExtensionRequest) async -> ExtensionAnswer {
        let start = ContinuousClock.now
        func answer(_ result: ExtensionAnswer.Result) -> ExtensionAnswer {
            ExtensionAnswer(result: result, milliseconds: Self.milliseconds(ContinuousClock.now - start))
        }
        while !stopped, idle.isEmpty, running >= record.processes {
            guard waiters.count < Self.maximumWaiting else {
                return answer(.failed("\(Self.maximumWaiting) pushes were waiting for the extension already"))
            }
            await withCheckedContinuation { waiters.append($0) }
        }
        guard !stopped else { return answer(.failed("Herald is stopping")) }
        let record = self.record
        let executable: String
        let arguments: [String]
        switch record.runner {
        case .process(let path, let list):
            (executable, arguments) = (path, list)
        case .webhook(let url, let secret):
            running += 1
            let result = await Self.call(url, secret: secret, request, record: record, post: post)
            running -= 1
            wakeNext()
            return answer(result)
        }
        let process: ExtensionProcess
        if let reused = idle.popLast() {
            process = reused
        } else {
            do {
                process = try ExtensionProcess(
                    executable: executable, arguments: arguments, environment: environment,
                    memoryLimit: record.memoryLimitBytes)
                started += 1
            } catch {
                wakeNext()
                return answer(.failed("could not start \(executable): \(error.localizedDescription)"))
            }
        }
        running += 1
        // The budget counts from handing the push over (a new process's start-up included).
        let handed = ContinuousClock.now
        let result = await Self.exchange(request, with: process, record: record, from: handed)
        running -= 1
        if case .content(_, _, expired: false) = result, process.isRunning, !stopped, record == self.record {
            process.dropLateAnswers()
            idle.append(process)
        } else {
            // One that failed, timed out or answered late is not trusted with the next push.
            process.stop()
        }
        wakeNext()
        return answer(result)
    }

    private func wakeNext() {
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }

    private static func exchange(
        _ request: ExtensionRequest, with process: ExtensionProcess, record: ServiceExtensionRecord,
        from handed: ContinuousClock.Instant
    ) async -> ExtensionAnswer.Result {
        var message: [String: JSONValue] = [
            "type": .string("request"), "id": .string(request.id), "identifier": .string(request.identifier),
            "date": .string(request.receivedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
            "payload": request.payload,
        ]
        if let apiURL = request.apiURL, let credential = request.credential {
            message["api_url"] = .string(apiURL)
            message["credential"] = .string(credential)
        }
        guard process.send(.object(message)) else {
            return .failed("its process " + (process.isRunning ? "does not read its input" : "ended"))
        }
        let budget = Duration.milliseconds(record.timeoutMilliseconds)
        var expired = false
        var event = await process.answer(to: request.id, until: handed + budget)
        if case .deadline = event {
            expired = true
            process.send(.object(["type": .string("expire"), "id": .string(request.id)]))
            event = await process.answer(to: request.id, until: ContinuousClock.now + expiryGrace)
        }
        switch event {
        case .answer(let answer):
            guard answer["type"]?.stringValue == "content", let content = answer["content"] else {
                return .failed(answer["message"]?.stringValue ?? "it answered something that is not content")
            }
            return .content(content, original: answer["original"] ?? .object([:]), expired: expired)
        case .exited(let why):
            return .failed("its process \(why)")
        case .deadline:
            return .timedOut
        }
    }

    /// The most bytes a webhook's answer may have: the largest attachment (a 50 MB movie) in base64,
    /// and the payload.
    static let maximumWebhookAnswer = 72 << 20

    /// A webhook extension: the request as JSON, signed with the registration's secret as Standard
    /// Webhooks sign (`webhook-id`: the notification's id; `webhook-timestamp`; `webhook-signature`),
    /// answered within the budget by `{"payload": {…}, "attachments"?: [{"data": base64,
    /// "identifier"?, "type"?, "thumbnail_hidden"?}]}` — the payload to show and the files to attach
    /// (a webhook has no second chance at expiry).
    static func call(
        _ url: String, secret: String, _ request: ExtensionRequest, record: ServiceExtensionRecord,
        post:
            @Sendable (_ url: String, _ body: Data, _ headers: [(String, String)], _ timeout: Duration) async -> (
                Int, Data
            )?
    ) async -> ExtensionAnswer.Result {
        let body = JSONValue.object([
            "type": .string("notification.service_extension"), "id": .string(request.id),
            "device_id": .string(request.deviceID), "bundle_id": .string(record.bundleID),
            "date": .string(request.receivedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
            "payload": request.payload,
        ])
        guard let data = try? JSONEncoder().encode(body) else { return .failed("the request could not be encoded") }
        let timestamp = Int(Date().timeIntervalSince1970)
        let headers = [
            ("webhook-id", request.id), ("webhook-timestamp", String(timestamp)),
            (
                "webhook-signature",
                WebhookService.signature(
                    secret: secret, id: request.id, timestamp: timestamp, body: String(decoding: data, as: UTF8.self))
            ),
        ]
        guard let (status, answer) = await post(url, data, headers, .milliseconds(record.timeoutMilliseconds)) else {
            return .timedOut
        }
        guard (200..<300).contains(status) else { return .failed("the webhook answered HTTP \(status)") }
        guard let object = (try? JSONParser.parse(Array(answer)))?.objectValue, let payload = object["payload"],
            payload.objectValue?["aps"]?.objectValue != nil
        else {
            return .failed("the webhook's answer is not {\"payload\": {\"aps\": {…}, …}}")
        }
        switch files(object["attachments"]) {
        case .success(let files): return .payload(payload, files: files)
        case .failure(let why): return .failed("the webhook's attachments: \(why.message)")
        }
    }

    struct Refusal: Error { var message: String }

    /// A webhook answer's `attachments` (absent or null: none).
    static func files(_ value: JSONValue?) -> Result<[ExtensionAnswer.File], Refusal> {
        guard let value, value != .null else { return .success([]) }
        guard let items = value.arrayValue, items.count <= 10 else {
            return .failure(Refusal(message: "must be an array of at most 10"))
        }
        var files: [ExtensionAnswer.File] = []
        for (index, item) in items.enumerated() {
            guard let object = item.objectValue,
                Set(object.keys).isSubset(of: ["identifier", "data", "type", "thumbnail_hidden"])
            else {
                return .failure(
                    Refusal(message: "[\(index)] must be {\"data\", \"identifier\"?, \"type\"?, \"thumbnail_hidden\"?}")
                )
            }
            guard case .string(let text)? = object["data"], let data = Data(base64Encoded: text) else {
                return .failure(Refusal(message: "[\(index)].data must be the file's bytes in base64"))
            }
            var identifier = ""
            if let given = object["identifier"], given != .null {
                guard case .string(let text) = given, text.utf8.count <= 256 else {
                    return .failure(Refusal(message: "[\(index)].identifier must be a string of at most 256 bytes"))
                }
                identifier = text
            }
            var hint: String?
            if let given = object["type"], given != .null {
                guard case .string(let text) = given else {
                    return .failure(Refusal(message: "[\(index)].type must be a UTI string"))
                }
                hint = text
            }
            var hidden = false
            if let given = object["thumbnail_hidden"], given != .null {
                guard case .bool(let flag) = given else {
                    return .failure(Refusal(message: "[\(index)].thumbnail_hidden must be a boolean"))
                }
                hidden = flag
            }
            files.append(
                ExtensionAnswer.File(
                    identifier: identifier.isEmpty ? UUID().uuidString : identifier, data: data, typeHint: hint,
                    thumbnailHidden: hidden))
        }
        return .success(files)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
