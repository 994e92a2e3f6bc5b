// The extension's side of Herald's service-extension protocol: `NotificationService.main()` (one line
// in the extension executable's main.swift, or `@main` on the class) makes the process an extension
// Herald can launch. Herald keeps the process running and writes one JSON object per line to its
// standard input; the process answers on its standard output:
//
//   Herald → extension  {"type":"request","id":J,"identifier":apns-id,"date":ISO 8601,"payload":{…},
//                        "api_url":…,"credential":…}     a push to change: a new instance's didReceive
//                       {"type":"expire","id":J}          its time is up: serviceExtensionTimeWillExpire()
//   extension → Herald  {"type":"content","id":J,"content":{…},"original":{…}}
//                                                         the content handler's first call, with the
//                                                         content it was given (what changed is merged)
//                       {"type":"error","id":J,"message":…}      content Herald cannot take
//
// The content is the app API's (`HeraldWireFormat.json`), without the push's own keys (`aps`, and
// `communication` when the content carries its communication fields): Herald merges it into the
// push's payload. What the extension prints goes to standard error (standard output is the
// protocol's), and the request's `api_url` and `credential` make `UNUserNotificationCenter.current()`
// and `INInteraction.donate()` reach Herald as the app on that device.
#if os(Linux)
    import Foundation
    import Glibc
    import Synchronization

    extension UNNotificationServiceExtension {
        /// Runs this extension class as Herald's service-extension process; returns only at the end of
        /// its input (Herald stopping it), by exiting.
        public static func main() {
            ServiceExtensionHost(make: { self.init() }).run()
        }
    }

    /// Reads Herald's requests, runs a new extension instance for each, writes the answers.
    final class ServiceExtensionHost: @unchecked Sendable {
        /// The instance handling one request (called on the host's queue only).
        private struct Running: @unchecked Sendable {
            let instance: UNNotificationServiceExtension
            let original: UNNotificationContent
        }

        private let make: () -> UNNotificationServiceExtension
        private let state = Mutex<[String: Running]>([:])
        private let centers = Mutex<[String: UNUserNotificationCenter]>([:])
        /// The app's connection of each request (its attachments are uploaded through it).
        private let connections = Mutex<[String: HeraldConnection]>([:])
        private let output: FileHandle
        private let outputLock = NSLock()
        private let queue = DispatchQueue(label: "herald.service-extension", attributes: .concurrent)

        init(make: @escaping () -> UNNotificationServiceExtension) {
            self.make = make
            // The protocol keeps the real standard output; the extension's own prints go to stderr.
            let protocolDescriptor = dup(STDOUT_FILENO)
            dup2(STDERR_FILENO, STDOUT_FILENO)
            output = FileHandle(fileDescriptor: protocolDescriptor, closeOnDealloc: true)
            signal(SIGPIPE, SIG_IGN)
        }

        func run() -> Never {
            let reader = Thread { [self] in
                while let line = readLine(strippingNewline: true) {
                    handle(line)
                }
                exit(0)
            }
            reader.start()
            dispatchMain()
        }

        private func handle(_ line: String) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                let type = object["type"] as? String, let id = object["id"] as? String
            else { return }
            switch type {
            case "request": start(id: id, object)
            case "expire":
                guard let running = state.withLock({ $0[id] }) else { return }
                queue.async { running.instance.serviceExtensionTimeWillExpire() }
            default: return
            }
        }

        private func start(id: String, _ object: [String: Any]) {
            let payload = object["payload"] as? [String: Any] ?? [:]
            let request = UNNotificationRequest(
                identifier: object["identifier"] as? String ?? id,
                content: HeraldWireFormat.content(payload: payload, isLocal: false),
                trigger: UNPushNotificationTrigger())
            if let text = object["api_url"] as? String, let url = URL(string: text),
                let credential = object["credential"] as? String
            {
                let center = centers.withLock { centers in
                    if let center = centers[credential] { return center }
                    let center = UNUserNotificationCenter(
                        connection: HeraldConnection(serverURL: url, credential: credential))
                    centers[credential] = center
                    return center
                }
                UNUserNotificationCenter.setCurrent(center)
                connections.withLock { $0[id] = center.connection }
            }
            let running = Running(instance: make(), original: request.content)
            state.withLock { $0[id] = running }
            queue.async { [self] in
                running.instance.didReceive(request) { [self] content in answer(id: id, content) }
            }
        }

        /// The content handler: the first call for a request answers it; later calls change nothing.
        private func answer(id: String, _ content: UNNotificationContent) {
            guard let running = state.withLock({ $0.removeValue(forKey: id) }) else { return }
            let connection = connections.withLock { $0.removeValue(forKey: id) }
            nonisolated(unsafe) let content = content
            // Attachments go to Herald's store first (through the app's connection), then the answer.
            Task { [self] in
                var message: [String: Any] = ["id": id]
                do {
                    var json = try Self.json(content)
                    if HeraldConnection.hasFiles(content) {
                        guard let connection else {
                            throw UNError(.attachmentMoveIntoDataStoreFailed, reason: "Herald gave no connection.")
                        }
                        json["attachments"] = try await connection.contentJSON(content)["attachments"]
                        // In Herald's store now: the extension's files are moved, as Apple moves them.
                        HeraldConnection.removeMovedFiles(of: content)
                    }
                    message["content"] = json
                    message["original"] = try Self.json(running.original)
                    message["type"] = "content"
                } catch let error as UNUserNotificationCenter.HeraldError {
                    message["type"] = "error"
                    message["message"] = error.message
                } catch let error as UNError {
                    message["type"] = "error"
                    message["message"] = error.localizedReason
                } catch {
                    message["type"] = "error"
                    message["message"] = "\(error)"
                }
                guard let data = try? JSONSerialization.data(withJSONObject: message) else { return }
                send(data)
            }
        }

        /// Content as Herald takes it back: a push's userInfo is its whole payload, so the keys Herald
        /// owns (`aps`, `communication`) go back as the content's fields, not in `user_info`.
        private static func json(_ content: UNNotificationContent) throws -> [String: Any] {
            var json = try HeraldWireFormat.json(content)
            if var userInfo = json["user_info"] as? [String: Any] {
                userInfo["aps"] = nil
                userInfo["communication"] = nil
                json["user_info"] = userInfo.isEmpty ? nil : userInfo
            }
            return json
        }

        private func send(_ data: Data) {
            outputLock.withLock {
                try? output.write(contentsOf: data + Data("\n".utf8))
            }
        }
    }
#endif
