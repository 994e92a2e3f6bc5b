import Foundation
import HeraldClient
import HeraldCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The answers `herald watch` takes from the keyboard: each notification gets a number and its
/// actions are listed; a line `N A [text]` sends action A of notification N (with the text of a
/// text-input action), `N o` opens it (the default action), `N d` dismisses it — each as the
/// person's response (`POST …/notifications/{id}/response`), which the app receives.
final class WatchKeyboard: Sendable {
    struct Entry {
        var id: String
        var actions: [(identifier: String, title: String, textInput: String?)]
    }

    private struct State {
        var numbers: [String: Int] = [:]
        var entries: [Int: Entry] = [:]
    }

    private let client: HeraldAPIClient
    private let deviceID: String
    private let state = HeraldMutex(State())

    init(client: HeraldAPIClient, deviceID: String) {
        self.client = client
        self.deviceID = deviceID
    }

    /// The line for a notification event, numbered and with its actions; other events unchanged.
    func numbered(_ line: String, for event: ServerSentEvent) -> String {
        guard event.event == "notification",
            let object = (try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)))?.objectValue,
            let id = object["id"]?.stringValue
        else { return line }
        let actions = NotificationEventFormatter.actions(of: event)
        let number = state.withLock { state in
            let number = state.numbers[id] ?? (state.numbers.count + 1)
            state.numbers[id] = number
            state.entries[number] = Entry(id: id, actions: actions)
            return number
        }
        guard object["dismissed_at"]?.stringValue == nil else { return "[\(number)] \(line)" }
        let listed = actions.enumerated().map { index, action in
            "\(index + 1) \(action.title)\(action.textInput == nil ? "" : "…")"
        }
        return "[\(number)] \(line)\n      " + (listed + ["o open", "d dismiss"]).joined(separator: " · ")
    }

    /// What a typed line asks for, or why it cannot be done.
    enum Command: Equatable {
        case respond(number: Int, action: String, text: String?)
        case refused(String)
    }

    /// Reads `N A [text]`, `N o` and `N d` against the numbered notifications.
    func command(_ line: String) -> Command? {
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard let first = words.first else { return nil }
        guard let number = Int(first), words.count >= 2 else {
            return .refused("Type `N A [text]` (action A of notification N), `N o` to open or `N d` to dismiss.")
        }
        guard let entry = state.withLock({ $0.entries[number] }) else {
            return .refused("There is no notification [\(number)].")
        }
        switch words[1] {
        case "o":
            return words.count == 2
                ? .respond(number: number, action: "default", text: nil) : .refused("`o` takes no text.")
        case "d":
            return words.count == 2
                ? .respond(number: number, action: "dismiss", text: nil) : .refused("`d` takes no text.")
        default:
            guard let index = Int(words[1]), entry.actions.indices.contains(index - 1) else {
                return .refused("Notification [\(number)] has actions 1 to \(entry.actions.count), `o` and `d`.")
            }
            let action = entry.actions[index - 1]
            let text = words.count == 3 ? words[2] : nil
            if action.textInput != nil, text == nil {
                return .refused("\(action.title) needs text: `\(number) \(index) your reply`.")
            }
            if action.textInput == nil, text != nil { return .refused("\(action.title) takes no text.") }
            return .respond(number: number, action: action.identifier, text: text)
        }
    }

    /// Reads lines from standard input until it ends or the task is cancelled, and sends each answer.
    func run() async {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        for await line in lines {
            guard let command = command(line) else { continue }
            switch command {
            case .refused(let sentence):
                Console.printError(sentence)
            case .respond(let number, let action, let text):
                guard let entry = state.withLock({ $0.entries[number] }) else { continue }
                do {
                    _ = try await client.respond(deviceID: deviceID, id: entry.id, action: action, text: text)
                    Console.printError(
                        "sent \(action == "default" ? "open" : action)\(text.map { " \"\($0)\"" } ?? "") to [\(number)]"
                    )
                } catch let error as HeraldAPIError {
                    Console.printError(error.jsonLine)
                } catch {
                    Console.printError("could not send the answer: \(error)")
                }
            }
        }
    }
}
