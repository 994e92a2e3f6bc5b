import ArgumentParser
import Foundation
import HeraldServer

/// `--data DIR`: the data directory whose files give the defaults of the other options.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            "A Herald data directory; its demo.json, runtime.json, admin-token and tls/ca.pem fill in the options not given.",
            valueName: "dir"
        )
    )
    var path: String?

    /// The data directory given, if any.
    var directory: DataDirectory? { path.map(DataDirectory.init(path:)) }

    /// The data directory given, or `./herald-data` when it exists.
    var directoryOrDefault: DataDirectory? {
        if let directory { return directory }
        let fallback = DataDirectory(path: DataDirectory.defaultPath)
        return FileManager.default.fileExists(atPath: fallback.root.path) ? fallback : nil
    }
}

/// Writing lines to stdout and stderr, each flushed at once (so `herald watch | …` sees every line
/// as it arrives).
enum Console {
    static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A failure that the command explains to the user in one sentence (no usage text).
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension DataDirectory {
    /// `demo.json`, or a failure that says how to get one.
    func requireDemo() throws -> DemoSetup {
        let demo: DemoSetup?
        do {
            demo = try readDemo()
        } catch {
            throw CommandFailure("Cannot read \(demoURL.path): \(error)")
        }
        guard let demo else {
            throw CommandFailure(
                "\(root.path) has no demo.json yet: run `herald serve --data \(root.path)` once to create the demo setup."
            )
        }
        return demo
    }

    /// `runtime.json` when a server wrote one, otherwise the URLs of the default ports.
    func runtimeOrDefaults() -> RuntimeInfo {
        ((try? readRuntime()) ?? nil) ?? .defaults()
    }
}

/// `text` quoted for a POSIX shell.
func shellQuoted(_ text: String) -> String {
    let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,")
    if !text.isEmpty, text.unicodeScalars.allSatisfy(safe.contains) { return text }
    return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
