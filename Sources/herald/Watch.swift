import ArgumentParser
import Foundation
import HeraldClient
import HeraldServer

/// `herald watch`: prints a device's notifications as they arrive.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a device's notifications as they arrive (one line each).",
        discussion: """
            Connects to the device's event stream, prints the changes after --cursor (or from now), then \
            each new one. After a dropped connection it reconnects with backoff and resumes after the \
            last event it printed. With --data, the device, URL and token default to that Herald data \
            directory's demo setup. Stops with Ctrl-C.

            On a terminal (or with --interactive) it also takes answers, a line each: each \
            notification is numbered ([3]) and lists its actions (1 Like · 2 Reply…); `3 1` sends \
            action 1 of notification 3, `3 2 On my way` a text reply, `3 o` opens it (the default \
            action), `3 d` dismisses it. Hidden previews show as the device shows them.

            With --desktop each notification that alerts also goes to the desktop's notification \
            service over D-Bus (dunst, GNOME, KDE: the freedesktop.org specification): urgency low \
            for passive, critical for critical, normal otherwise; the category's actions as buttons \
            (not text-input ones: the desktop has no text field). A button pressed there is sent \
            to the app as the person's response, a notification closed there as a dismissal.
            """
    )

    @Option(name: .customLong("device"), help: ArgumentHelp("The device id.", valueName: "id"))
    var deviceID: String?

    @Option(
        help: ArgumentHelp(
            "The JSON API's URL (default: the data directory's, else http://127.0.0.1:8080).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The user's bearer token for the device API.", valueName: "token"))
    var token: String?

    @Option(
        help: ArgumentHelp("Print the changes after this cursor first (default: only new ones).", valueName: "cursor"))
    var cursor: String?

    @Flag(help: "Print each event's JSON data line as received instead of a summary.")
    var json = false

    @Flag(help: "Read answers from standard input also when it is not a terminal.")
    var interactive = false

    @Flag(help: "Also show alerting notifications on the desktop (D-Bus) and send its answers back.")
    var desktop = false

    @OptionGroup var data: DataDirectoryOption

    func validate() throws {
        if let url, URL(string: url)?.host == nil {
            throw ValidationError("--url must look like http://host[:port], not \(url).")
        }
        if data.directoryOrDefault == nil {
            if deviceID == nil {
                throw ValidationError("Missing --device: give it, or --data DIR to use the demo device.")
            }
            if token == nil {
                throw ValidationError("Missing --token: give the user's token, or --data DIR to use the demo user's.")
            }
        }
    }

    func run() async throws {
        let directory = data.directoryOrDefault
        let demo = (deviceID == nil || token == nil) ? try directory?.requireDemo() : nil
        guard let deviceID = deviceID ?? demo?.deviceID, let token = token ?? demo?.userToken else {
            throw ValidationError("Missing --device or --token.")
        }
        let urlString = url ?? directory?.runtimeOrDefaults().apiURL ?? RuntimeInfo.defaults().apiURL
        guard let baseURL = URL(string: urlString) else { throw ValidationError("--url is not a URL: \(urlString)") }

        let client = try HeraldAPIClient(baseURL: baseURL, bearerToken: token)
        let formatter = NotificationEventFormatter()
        let json = json
        do {
            let events = client.events(deviceID: deviceID, cursor: cursor) { status in
                switch status {
                case .connected(let lastEventID):
                    Console.printError(
                        "watching device \(deviceID) at \(urlString)" + (lastEventID.map { " after \($0)" } ?? ""))
                case .disconnected(let reason, let delay):
                    Console.printError("connection lost (\(reason)); reconnecting in \(Self.seconds(delay))")
                }
            }
            let keyboard =
                (interactive || isatty(STDIN_FILENO) == 1) && !json
                ? WatchKeyboard(client: client, deviceID: deviceID) : nil
            let answers = Task { await keyboard?.run() }
            defer { answers.cancel() }
            let desktop = try self.desktop ? WatchDesktop(client: client, deviceID: deviceID) : nil
            for try await event in events {
                await desktop?.forward(event)
                guard !json else {
                    Console.printLine(event.data)
                    continue
                }
                let line = formatter.line(for: event)
                Console.printLine(keyboard?.numbered(line, for: event) ?? line)
            }
            await desktop?.stop()
        } catch let error as HeraldAPIError {
            try? await client.shutdown()
            Console.printError(error.jsonLine)
            throw ExitCode.failure
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", seconds)
    }
}
