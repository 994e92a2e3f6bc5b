// UNNotificationSound: the default sound, a named sound file, critical sounds (with a volume) and
// ringtones. Apple gives it no public getters; the package-level ones let Herald's wiring send the
// APNs `sound` value (a name or the critical dictionary).
#if os(Linux)
    import Foundation

    open class UNNotificationSound: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
        /// The kinds Apple distinguishes: plain, critical (plays when muted, needs the entitlement) and
        /// ringtone (only for content made from an `INStartCallIntent`).
        package enum Kind: Int, Sendable {
            case normal = 0
            case critical = 1
            case ringtone = 2
        }

        /// nil = the system's default sound of the kind.
        package let soundName: UNNotificationSoundName?
        package let kind: Kind
        /// Only for critical sounds: 0…1 (nil = the system's volume).
        package let audioVolume: Float?

        package init(soundName: UNNotificationSoundName?, kind: Kind, audioVolume: Float?) {
            self.soundName = soundName
            self.kind = kind
            // Apple clamps the volume to 0…1.
            self.audioVolume = audioVolume.map { min(max($0, 0), 1) }
            super.init()
        }

        @available(*, unavailable, message: "Use UNNotificationSound.default or init(named:)")
        public override init() { fatalError("UNNotificationSound() is unavailable") }

        public convenience init(named name: UNNotificationSoundName) {
            self.init(soundName: name, kind: .normal, audioVolume: nil)
        }

        open class var `default`: UNNotificationSound {
            UNNotificationSound(soundName: nil, kind: .normal, audioVolume: nil)
        }

        open class var defaultCritical: UNNotificationSound {
            UNNotificationSound(soundName: nil, kind: .critical, audioVolume: nil)
        }

        open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
            UNNotificationSound(soundName: nil, kind: .critical, audioVolume: volume)
        }

        open class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
            UNNotificationSound(soundName: name, kind: .critical, audioVolume: nil)
        }

        open class func criticalSoundNamed(_ name: UNNotificationSoundName, withAudioVolume volume: Float)
            -> UNNotificationSound
        {
            UNNotificationSound(soundName: name, kind: .critical, audioVolume: volume)
        }

        open class var defaultRingtone: UNNotificationSound {
            UNNotificationSound(soundName: nil, kind: .ringtone, audioVolume: nil)
        }

        open class func ringtoneSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
            UNNotificationSound(soundName: name, kind: .ringtone, audioVolume: nil)
        }

        // MARK: NSObject, NSCopying, NSSecureCoding

        open override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? UNNotificationSound else { return false }
            return soundName == other.soundName && kind == other.kind && audioVolume == other.audioVolume
        }

        open override var hash: Int {
            var hasher = Hasher()
            hasher.combine(soundName)
            hasher.combine(kind)
            hasher.combine(audioVolume)
            return hasher.finalize()
        }

        /// The sound is immutable: a copy is the object itself, as Foundation does for immutable values.
        open func copy(with zone: NSZone? = nil) -> Any { self }

        public static var supportsSecureCoding: Bool { true }

        open func encode(with coder: NSCoder) {
            coder.encodeString(soundName?.rawValue, forKey: "soundName")
            coder.encode(kind.rawValue, forKey: "kind")
            coder.encode(audioVolume.map { NSNumber(value: $0) }, forKey: "audioVolume")
        }

        public required init?(coder: NSCoder) {
            guard let kind = Kind(rawValue: coder.decodeInteger(forKey: "kind")) else { return nil }
            self.kind = kind
            self.soundName = coder.decodeString(forKey: "soundName").map(UNNotificationSoundName.init(rawValue:))
            self.audioVolume = coder.decodeOptional(of: NSNumber.self, forKey: "audioVolume")?.floatValue
            super.init()
        }
    }
#endif
