import Synchronization

#if HERALD_TSAN
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif
#endif

#if !HERALD_TSAN
    /// The lock Herald's shared state is kept under: `Synchronization.Mutex` itself (a typealias, so
    /// the normal build's lock is the standard library's, inlined, unchanged).
    ///
    /// Built with `-DHERALD_TSAN` (`scripts/sanitize thread`) it is a `pthread_mutex_t` instead, with
    /// the same `withLock` API: ThreadSanitizer intercepts `pthread_mutex_lock`/`unlock`, whereas
    /// `Mutex`'s lock runs in the uninstrumented standard library wherever it is not inlined, so TSan
    /// would report the accesses it protects as races (docs/reliability.md, "Sanitizers").
    public typealias HeraldMutex<Value: ~Copyable> = Synchronization.Mutex<Value>
#else
    /// The ThreadSanitizer build's `HeraldMutex` (see the typealias in the normal build): a
    /// `pthread_mutex_t`, which TSan sees, with the part of `Synchronization.Mutex`'s API Herald uses.
    /// Non-copyable like `Mutex`, so code that compiles against one compiles against the other.
    ///
    /// The mutex and the value live in allocations of their own (a `pthread_mutex_t` must not move
    /// once initialised), reached through unsafe pointers: no class in between, whose instrumented
    /// field accesses TSan would report against the unlocked read of its metadata in `lock()`.
    public struct HeraldMutex<Value: ~Copyable>: ~Copyable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private let value: UnsafeMutablePointer<Value>

        /// A lock guarding `initialValue`.
        public init(_ initialValue: consuming sending Value) {
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
            value = .allocate(capacity: 1)
            value.initialize(to: initialValue)
        }

        deinit {
            value.deinitialize(count: 1)
            value.deallocate()
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }

        /// Runs `body` with the value, the lock held.
        public borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            let status = pthread_mutex_lock(mutex)
            precondition(status == 0, "pthread_mutex_lock failed: \(status)")
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }

        /// Runs `body` with the value if the lock is free, without waiting; nil if it is held.
        public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result? {
            guard pthread_mutex_trylock(mutex) == 0 else { return nil }
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    extension HeraldMutex: @unchecked Sendable where Value: ~Copyable {}
#endif
