import Foundation

/// A throwaway server in another language (a Python or Node script) that prints its port on its
/// first stdout line — enough to drive the clients over real sockets without Herald's server.
final class MockServer {
    let process = Process()
    let port: Int
    private let output = Pipe()

    init(_ executable: String, script: String, arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable, "-c", script] + arguments
        if executable == "node" { process.arguments = [executable, "-e", script] + arguments }
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            kill(process.processIdentifier, SIGKILL)
            throw MockServerError(description: "\(executable) printed no port: \(text)")
        }
        self.port = port
    }

    /// Kills the server. SIGKILL, because a child of the test runner inherits its blocked SIGTERM.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct MockServerError: Error, CustomStringConvertible {
    let description: String
}
