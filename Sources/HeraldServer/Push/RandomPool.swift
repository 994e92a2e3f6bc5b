import HeraldCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random 64-bit words for ids (apns-id, apns-unique-id), read from the kernel 4 KiB at a time.
///
/// `SystemRandomNumberGenerator` asks the kernel once per word: with two ids per push that was
/// four system calls per push, visible in profiles of the APNs endpoint. The words are as random
/// as the system generator's (`/dev/urandom`); should it not be readable, this falls back to it.
final class RandomPool: Sendable {
    static let shared = RandomPool()

    private struct State {
        var words: [UInt64] = []
        var next = 0
    }

    private static let wordsPerRead = 512
    private let state = HeraldMutex(State())
    private let descriptor: Int32

    private init() {
        descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    }

    func next() -> UInt64 {
        state.withLock { state in
            if state.next == state.words.count {
                state.words = Self.read(descriptor)
                state.next = 0
            }
            defer { state.next += 1 }
            return state.words[state.next]
        }
    }

    private static func read(_ descriptor: Int32) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: wordsPerRead)
        let complete =
            descriptor >= 0
            && words.withUnsafeMutableBytes { buffer in
                var filled = 0
                while filled < buffer.count {
                    let count = readBytes(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                    if count > 0 {
                        filled += count
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        return false
                    }
                }
                return true
            }
        if !complete {
            var system = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = system.next() }
        }
        return words
    }
}

/// `read(2)` (the name is taken by the static method above).
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// A `RandomNumberGenerator` over `RandomPool.shared`.
struct PooledRandomGenerator: RandomNumberGenerator {
    mutating func next() -> UInt64 {
        RandomPool.shared.next()
    }
}
