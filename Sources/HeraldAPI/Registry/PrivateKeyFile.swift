import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing a private key file the way Apple's `AuthKey_<KEYID>.p8` download arrives, readable by
/// the owner only.
enum PrivateKeyFile {
    struct WriteError: Error, CustomStringConvertible {
        /// Whether the file was there already (it is never overwritten).
        var exists: Bool
        var errno: Int32
        var description: String { "could not write the private key file (errno \(errno))" }
    }

    /// Creates the file at `path` with mode 0600 and `contents`; throws if it exists.
    static func create(at path: String, contents: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw WriteError(exists: errno == EEXIST, errno: errno) }
        var failure: Int32?
        if fchmod(fd, 0o600) != 0 { failure = errno }
        var bytes = Array(contents.utf8)[...]
        while failure == nil, !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno != EINTR { failure = errno }
            } else {
                bytes = bytes.dropFirst(written)
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        close(fd)
        if let failure {
            unlink(path)
            throw WriteError(exists: false, errno: failure)
        }
    }
}
