import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files only their owner may read (mode 0600): keys and tokens.
///
/// The content goes to a new temporary file created with mode 0600 in the same directory, so the
/// file is never readable by others and never seen half-written.
enum PrivateFile {
    /// Writes `data` to `url`, replacing an existing file.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = try writeTemporary(data, beside: url)
        guard rename(temporary.path, url.path) == 0 else {
            let error = FileError.posix("rename", url, errno)
            unlink(temporary.path)
            throw error
        }
    }

    /// Writes `data` to `url` unless a file is there already; returns whether it wrote.
    ///
    /// Safe against a concurrent writer: exactly one process creates the file (`link` fails with
    /// `EEXIST` for the others).
    @discardableResult
    static func create(_ data: Data, at url: URL) throws -> Bool {
        let temporary = try writeTemporary(data, beside: url)
        defer { unlink(temporary.path) }
        guard link(temporary.path, url.path) == 0 else {
            if errno == EEXIST { return false }
            throw FileError.posix("link", url, errno)
        }
        return true
    }

    private static func writeTemporary(_ data: Data, beside url: URL) throws -> URL {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError.posix("open", temporary, errno) }
        defer { close(descriptor) }
        do {
            try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: data)
            guard fsync(descriptor) == 0 else { throw FileError.posix("fsync", temporary, errno) }
        } catch {
            unlink(temporary.path)
            throw error
        }
        return temporary
    }
}

/// A file operation that failed, with the path and the system's reason.
public struct FileError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the user.
    public let description: String

    static func posix(_ operation: String, _ url: URL, _ code: Int32) -> FileError {
        FileError(description: "\(operation) \(url.path): \(String(cString: strerror(code)))")
    }
}
