import Foundation
import HeraldCore
import Synchronization

/// A notification for the desktop's notification service (the freedesktop.org Desktop
/// Notifications specification, which dunst, GNOME Shell, KDE Plasma and others implement).
public struct DesktopNotification: Sendable, Equatable {
    /// How urgent it is: the specification's `urgency` hint.
    public enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
        case critical = 2
    }

    public var appName: String
    public var summary: String
    public var body: String
    /// Action keys and their labels, in order; the key `default` is the notification's own click.
    public var actions: [(key: String, label: String)]
    public var urgency: Urgency
    /// The desktop notification this one replaces (0: none).
    public var replaces: UInt32 = 0

    public init(
        appName: String, summary: String, body: String, actions: [(key: String, label: String)], urgency: Urgency,
        replaces: UInt32 = 0
    ) {
        self.appName = appName
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.replaces = replaces
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.appName == rhs.appName && lhs.summary == rhs.summary && lhs.body == rhs.body
            && lhs.actions.map(\.key) == rhs.actions.map(\.key) && lhs.actions.map(\.label) == rhs.actions.map(\.label)
            && lhs.urgency == rhs.urgency && lhs.replaces == rhs.replaces
    }
}

/// What the notification service tells about the notifications this connection sent.
public enum DesktopNotificationSignal: Sendable, Equatable {
    /// The person chose the action `key` of notification `id`.
    case actionInvoked(id: UInt32, key: String)
    /// Notification `id` went away: `reason` 1 expired, 2 dismissed by the person, 3 closed by a
    /// `CloseNotification` call, 4 other.
    case closed(id: UInt32, reason: UInt32)
}

#if canImport(Glibc)
    import Glibc

    /// One connection to the session bus's `org.freedesktop.Notifications`, on a thread of its own:
    /// libdbus's calls block, and the service sends its signals only to the connection that sent the
    /// notification (dunst does), so sending and listening share this one connection.
    public final class DesktopNotifications: Sendable {
        private enum Request {
            case notify(DesktopNotification, CheckedContinuation<UInt32, any Error>)
            case close(UInt32)
        }

        private struct State {
            var requests: [Request] = []
            var isStopped = false
        }

        private static let service = "org.freedesktop.Notifications"
        private static let path = "/org/freedesktop/Notifications"

        private let state = HeraldMutex(State())
        private let finished = DispatchSemaphore(value: 0)

        /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`) and starts listening; `onSignal`
        /// runs on the connection's thread for each action invoked and each notification closed.
        public init(onSignal: @escaping @Sendable (DesktopNotificationSignal) -> Void) throws {
            let dbus = try LibDBus.shared.get()
            guard
                let connection = try dbus.checking(
                    "Cannot connect to the session bus", { dbus.busGet(LibDBus.sessionBus, $0) })
            else { throw DesktopNotificationError("Cannot connect to the session bus") }
            dbus.setExitOnDisconnect(connection, 0)
            do {
                try dbus.checking("Cannot listen to the notification service") {
                    dbus.busAddMatch(connection, "type='signal',interface='\(Self.service)'", $0)
                }
            } catch {
                dbus.connectionClose(connection)
                dbus.connectionUnref(connection)
                throw error
            }
            let handle = UnsafeSendable(connection)
            // The thread holds the object until the connection is closed.
            let thread = Thread { [self] in
                // Named from the thread itself (≤ 15 bytes): on Linux a name set before `start()` is not
                // the system thread's.
                Thread.current.name = "herald-dbus"
                run(dbus: dbus, connection: handle.value, onSignal: onSignal)
                dbus.connectionClose(handle.value)
                dbus.connectionUnref(handle.value)
                finished.signal()
            }
            thread.start()
        }

        /// Shows `notification`; returns the id the service gave it.
        public func notify(_ notification: DesktopNotification) async throws -> UInt32 {
            try await withCheckedThrowingContinuation { continuation in
                let stopped = state.withLock { state in
                    if !state.isStopped { state.requests.append(.notify(notification, continuation)) }
                    return state.isStopped
                }
                if stopped { continuation.resume(throwing: DesktopNotificationError("the connection is closed")) }
            }
        }

        /// Takes notification `id` off the screen.
        public func close(id: UInt32) {
            state.withLock { state in if !state.isStopped { state.requests.append(.close(id)) } }
        }

        /// Closes the connection; waits for its thread to end.
        public func stop() async {
            state.withLock { $0.isStopped = true }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread { [finished] in
                    finished.wait()
                    continuation.resume()
                }
            }
        }

        private func run(
            dbus: LibDBus, connection: LibDBus.Connection, onSignal: @Sendable (DesktopNotificationSignal) -> Void
        ) {
            while true {
                let (requests, isStopped) = state.withLock { state in
                    defer { state.requests = [] }
                    return (state.requests, state.isStopped)
                }
                for request in requests {
                    switch request {
                    case .notify(let notification, let continuation):
                        continuation.resume(
                            with: Result { try Self.send(notification, dbus: dbus, connection: connection) })
                    case .close(let id):
                        let reply = try? Self.call("CloseNotification", dbus: dbus, connection: connection) {
                            iterator in
                            var id = id
                            _ = dbus.iterAppendBasic(iterator, LibDBus.uint32, &id)
                        }
                        if let reply { dbus.messageUnref(reply) }
                    }
                }
                if isStopped { return }
                // Waits up to 50 ms for the bus; false: the bus went away.
                guard dbus.readWrite(connection, 50) != 0 else {
                    let pending = state.withLock { state in
                        state.isStopped = true
                        defer { state.requests = [] }
                        return state.requests
                    }
                    for case .notify(_, let continuation) in pending {
                        continuation.resume(throwing: DesktopNotificationError("the session bus went away"))
                    }
                    return
                }
                while let message = dbus.popMessage(connection) {
                    if let signal = Self.signal(in: message, dbus: dbus) { onSignal(signal) }
                    dbus.messageUnref(message)
                }
            }
        }

        /// `Notify` with the specification's arguments (`susssasa{sv}i`).
        private static func send(_ notification: DesktopNotification, dbus: LibDBus, connection: LibDBus.Connection)
            throws -> UInt32
        {
            let reply = try call("Notify", dbus: dbus, connection: connection) { iterator in
                func append(_ text: String, to iterator: UnsafeMutableRawPointer) {
                    text.withCString { pointer in
                        var pointer = pointer
                        _ = dbus.iterAppendBasic(iterator, LibDBus.string, &pointer)
                    }
                }
                func container(
                    _ type: Int32, _ signature: String?, in iterator: UnsafeMutableRawPointer,
                    _ body: (UnsafeMutableRawPointer) -> Void
                ) {
                    let inner = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
                    defer { inner.deallocate() }
                    if let signature {
                        _ = signature.withCString { dbus.iterOpenContainer(iterator, type, $0, inner) }
                    } else {
                        _ = dbus.iterOpenContainer(iterator, type, nil, inner)
                    }
                    body(inner)
                    _ = dbus.iterCloseContainer(iterator, inner)
                }
                append(notification.appName, to: iterator)
                var replaces = notification.replaces
                _ = dbus.iterAppendBasic(iterator, LibDBus.uint32, &replaces)
                append("", to: iterator)
                append(notification.summary, to: iterator)
                append(notification.body, to: iterator)
                container(LibDBus.array, "s", in: iterator) { actions in
                    for action in notification.actions {
                        append(action.key, to: actions)
                        append(action.label, to: actions)
                    }
                }
                container(LibDBus.array, "{sv}", in: iterator) { hints in
                    container(LibDBus.dictEntry, nil, in: hints) { entry in
                        append("urgency", to: entry)
                        container(LibDBus.variant, "y", in: entry) { value in
                            var urgency = notification.urgency.rawValue
                            _ = dbus.iterAppendBasic(value, LibDBus.byte, &urgency)
                        }
                    }
                }
                var timeout: Int32 = -1
                _ = dbus.iterAppendBasic(iterator, LibDBus.int32, &timeout)
            }
            defer { dbus.messageUnref(reply) }
            let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
            defer { iterator.deallocate() }
            guard dbus.iterInit(reply, iterator) != 0, dbus.iterGetArgType(iterator) == LibDBus.uint32 else {
                throw DesktopNotificationError("Notify answered without an id")
            }
            var id: UInt32 = 0
            dbus.iterGetBasic(iterator, &id)
            return id
        }

        /// Calls `method` of the notification service with the arguments `append` writes; returns the
        /// reply (the caller releases it).
        private static func call(
            _ method: String, dbus: LibDBus, connection: LibDBus.Connection,
            append: (UnsafeMutableRawPointer) -> Void
        ) throws -> LibDBus.Message {
            guard let message = dbus.newMethodCall(service, path, service, method) else {
                throw DesktopNotificationError("out of memory")
            }
            defer { dbus.messageUnref(message) }
            let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
            defer { iterator.deallocate() }
            dbus.iterInitAppend(message, iterator)
            append(iterator)
            let reply = try dbus.checking("The notification service refused \(method)") {
                dbus.sendWithReplyAndBlock(connection, message, 5_000, $0)
            }
            guard let reply else { throw DesktopNotificationError("The notification service did not answer \(method)") }
            return reply
        }

        /// `ActionInvoked(u id, s key)` or `NotificationClosed(u id, u reason)`; nil for anything else.
        private static func signal(in message: LibDBus.Message, dbus: LibDBus) -> DesktopNotificationSignal? {
            guard dbus.messageGetType(message) == LibDBus.messageTypeSignal else { return nil }
            let iterator = UnsafeMutableRawPointer.allocate(byteCount: LibDBus.iteratorSize, alignment: 16)
            defer { iterator.deallocate() }
            func uint32() -> UInt32? {
                guard dbus.iterGetArgType(iterator) == LibDBus.uint32 else { return nil }
                var value: UInt32 = 0
                dbus.iterGetBasic(iterator, &value)
                return value
            }
            func string() -> String? {
                guard dbus.iterGetArgType(iterator) == LibDBus.string else { return nil }
                var value: UnsafePointer<CChar>?
                dbus.iterGetBasic(iterator, &value)
                return value.map { String(cString: $0) }
            }
            guard dbus.iterInit(message, iterator) != 0 else { return nil }
            if dbus.isSignal(message, service, "ActionInvoked") != 0 {
                guard let id = uint32(), dbus.iterNext(iterator) != 0, let key = string() else { return nil }
                return .actionInvoked(id: id, key: key)
            }
            if dbus.isSignal(message, service, "NotificationClosed") != 0 {
                guard let id = uint32(), dbus.iterNext(iterator) != 0, let reason = uint32() else { return nil }
                return .closed(id: id, reason: reason)
            }
            return nil
        }
    }

    /// A C pointer handed to the connection's thread, which alone uses it.
    private struct UnsafeSendable<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
#endif
