#if canImport(Glibc)
    import Glibc

    /// The part of libdbus (the freedesktop reference implementation of D-Bus) that desktop
    /// notifications need, loaded at run time with `dlopen`: every Linux desktop has `libdbus-1.so.3`,
    /// but not its headers, so Herald builds without them and only `herald watch --desktop` needs the
    /// library. Only non-variadic functions are used (the message iterators), so each is called
    /// through a plain C function pointer.
    struct LibDBus: @unchecked Sendable {
        typealias Connection = OpaquePointer
        typealias Message = OpaquePointer
        typealias Bool32 = UInt32

        // Type codes (dbus-protocol.h).
        static let string = Int32(UInt8(ascii: "s"))
        static let uint32 = Int32(UInt8(ascii: "u"))
        static let int32 = Int32(UInt8(ascii: "i"))
        static let byte = Int32(UInt8(ascii: "y"))
        static let array = Int32(UInt8(ascii: "a"))
        static let variant = Int32(UInt8(ascii: "v"))
        static let dictEntry = Int32(UInt8(ascii: "e"))
        static let messageTypeSignal: Int32 = 4
        static let sessionBus: Int32 = 0
        /// Bytes reserved for a `DBusError` (32 on 64-bit) and a `DBusMessageIter` (72): both are
        /// structs the caller allocates; twice their size leaves room for any layout.
        static let errorSize = 64
        static let iteratorSize = 144

        let errorInit: @convention(c) (UnsafeMutableRawPointer) -> Void
        let errorIsSet: @convention(c) (UnsafeRawPointer) -> Bool32
        let errorFree: @convention(c) (UnsafeMutableRawPointer) -> Void
        let busGet: @convention(c) (Int32, UnsafeMutableRawPointer) -> Connection?
        let busAddMatch: @convention(c) (Connection, UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Void
        let setExitOnDisconnect: @convention(c) (Connection, Bool32) -> Void
        let connectionClose: @convention(c) (Connection) -> Void
        let connectionUnref: @convention(c) (Connection) -> Void
        let readWrite: @convention(c) (Connection, Int32) -> Bool32
        let popMessage: @convention(c) (Connection) -> Message?
        let sendWithReplyAndBlock: @convention(c) (Connection, Message, Int32, UnsafeMutableRawPointer) -> Message?
        let newMethodCall:
            @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>)
                -> Message?
        let messageUnref: @convention(c) (Message) -> Void
        let messageGetType: @convention(c) (Message) -> Int32
        let isSignal: @convention(c) (Message, UnsafePointer<CChar>, UnsafePointer<CChar>) -> Bool32
        let iterInitAppend: @convention(c) (Message, UnsafeMutableRawPointer) -> Void
        let iterAppendBasic: @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer) -> Bool32
        let iterOpenContainer:
            @convention(c) (UnsafeMutableRawPointer, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer) -> Bool32
        let iterCloseContainer: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Bool32
        let iterInit: @convention(c) (Message, UnsafeMutableRawPointer) -> Bool32
        let iterGetArgType: @convention(c) (UnsafeMutableRawPointer) -> Int32
        let iterGetBasic: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
        let iterNext: @convention(c) (UnsafeMutableRawPointer) -> Bool32

        /// The library, or why it cannot be loaded.
        static let shared: Result<LibDBus, DesktopNotificationError> = Result { () throws(DesktopNotificationError) in
            try LibDBus()
        }

        private init() throws(DesktopNotificationError) {
            guard let handle = dlopen("libdbus-1.so.3", RTLD_NOW) else {
                throw DesktopNotificationError(
                    "libdbus-1.so.3 cannot be loaded (Debian: apt-get install libdbus-1-3): "
                        + String(cString: dlerror()))
            }
            func symbol<T>(_ name: String, as type: T.Type) throws(DesktopNotificationError) -> T {
                guard let pointer = dlsym(handle, name) else {
                    throw DesktopNotificationError("libdbus-1.so.3 has no \(name)")
                }
                return unsafeBitCast(pointer, to: type)
            }
            errorInit = try symbol("dbus_error_init", as: type(of: errorInit))
            errorIsSet = try symbol("dbus_error_is_set", as: type(of: errorIsSet))
            errorFree = try symbol("dbus_error_free", as: type(of: errorFree))
            busGet = try symbol("dbus_bus_get_private", as: type(of: busGet))
            busAddMatch = try symbol("dbus_bus_add_match", as: type(of: busAddMatch))
            setExitOnDisconnect = try symbol(
                "dbus_connection_set_exit_on_disconnect", as: type(of: setExitOnDisconnect))
            connectionClose = try symbol("dbus_connection_close", as: type(of: connectionClose))
            connectionUnref = try symbol("dbus_connection_unref", as: type(of: connectionUnref))
            readWrite = try symbol("dbus_connection_read_write", as: type(of: readWrite))
            popMessage = try symbol("dbus_connection_pop_message", as: type(of: popMessage))
            sendWithReplyAndBlock = try symbol(
                "dbus_connection_send_with_reply_and_block", as: type(of: sendWithReplyAndBlock))
            newMethodCall = try symbol("dbus_message_new_method_call", as: type(of: newMethodCall))
            messageUnref = try symbol("dbus_message_unref", as: type(of: messageUnref))
            messageGetType = try symbol("dbus_message_get_type", as: type(of: messageGetType))
            isSignal = try symbol("dbus_message_is_signal", as: type(of: isSignal))
            iterInitAppend = try symbol("dbus_message_iter_init_append", as: type(of: iterInitAppend))
            iterAppendBasic = try symbol("dbus_message_iter_append_basic", as: type(of: iterAppendBasic))
            iterOpenContainer = try symbol("dbus_message_iter_open_container", as: type(of: iterOpenContainer))
            iterCloseContainer = try symbol("dbus_message_iter_close_container", as: type(of: iterCloseContainer))
            iterInit = try symbol("dbus_message_iter_init", as: type(of: iterInit))
            iterGetArgType = try symbol("dbus_message_iter_get_arg_type", as: type(of: iterGetArgType))
            iterGetBasic = try symbol("dbus_message_iter_get_basic", as: type(of: iterGetBasic))
            iterNext = try symbol("dbus_message_iter_next", as: type(of: iterNext))
        }

        /// Runs `body` with an initialised `DBusError`; throws its message when `body` set it.
        func checking<T>(_ what: String, _ body: (UnsafeMutableRawPointer) -> T) throws(DesktopNotificationError) -> T {
            let error = UnsafeMutableRawPointer.allocate(byteCount: Self.errorSize, alignment: 16)
            defer { error.deallocate() }
            errorInit(error)
            let result = body(error)
            guard errorIsSet(error) != 0 else { return result }
            let message = error.load(
                fromByteOffset: MemoryLayout<UnsafePointer<CChar>?>.stride, as: UnsafePointer<CChar>?.self)
            let text = message.map { String(cString: $0) } ?? "unknown error"
            errorFree(error)
            throw DesktopNotificationError("\(what): \(text)")
        }
    }
#endif

/// Why desktop notifications cannot be shown.
public struct DesktopNotificationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
