import Foundation

/// The tests of HeraldClient and the herald commands (`swift test --filter ClientTests`).
enum ClientTests {}

/// The tests of the local CA and the data directory (`swift test --filter CertificateTests`).
enum CertificateTests {}

/// A new empty directory under the system's temporary directory, removed by the caller.
func makeTemporaryDirectory(_ name: String = #function) throws -> URL {
    let safeName = name.filter { $0.isLetter || $0.isNumber }
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("herald-\(safeName)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The result of running a program to its end.
struct ProcessOutput {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs `executable` (looked up on PATH) with `arguments` and waits for it.
func runProcess(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    let output = Pipe()
    let error = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(input) }
    try inputPipe.fileHandleForWriting.close()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self)
    )
}

/// Whether `executable` is on PATH.
func isInstalled(_ executable: String) -> Bool {
    (try? runProcess("sh", ["-c", "command -v \(executable)"]).status) == 0
}
