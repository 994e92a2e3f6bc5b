import HeraldCore

/// What a sentence about a decision needs to name: the app, the Focus, the sender, the route.
public struct ExplanationContext: Sendable, Hashable {
    /// The app's display name ("Demo").
    public var appName: String
    /// The active Focus, when there was one.
    public var focus: FocusMode?
    public var sender: PersonHandle?
    /// The sender's name as the device shows it ("Ana"); sentences name the handle without it.
    public var senderName: String?
    public var audioRoute: AudioRoute
    /// The critical volume the decision chose.
    public var criticalVolume: Double?
    /// The `interruption-level` as sent, when the policy did not recognise it.
    public var unrecognizedLevel: UnrecognizedLevel?

    /// An `interruption-level` the policy did not recognise, and the level it counted as instead.
    public struct UnrecognizedLevel: Sendable, Hashable {
        public var sent: String
        /// Active, or critical with a critical-alert sound (`NotificationFacts.level`).
        public var treatedAs: InterruptionLevel

        public init(sent: String, treatedAs: InterruptionLevel) {
            self.sent = sent
            self.treatedAs = treatedAs
        }

        /// The unrecognised level of `notification`, if it has one.
        public init?(_ notification: NotificationFacts) {
            guard let sent = notification.unrecognizedLevel else { return nil }
            self.init(sent: sent, treatedAs: notification.level)
        }
    }

    public init(
        appName: String, focus: FocusMode? = nil, sender: PersonHandle? = nil, senderName: String? = nil,
        audioRoute: AudioRoute = .none, criticalVolume: Double? = nil, unrecognizedLevel: UnrecognizedLevel? = nil
    ) {
        self.appName = appName
        self.focus = focus
        self.sender = sender
        self.senderName = senderName
        self.audioRoute = audioRoute
        self.criticalVolume = criticalVolume
        self.unrecognizedLevel = unrecognizedLevel
    }

    /// The context of a decision made by `decide` with these inputs.
    public init(notification: NotificationFacts, app: App, focus: ActiveFocus?, device: DeviceState, decision: Decision)
    {
        self.init(
            appName: app.name, focus: focus?.mode, sender: notification.sender, audioRoute: device.audioRoute,
            criticalVolume: decision.sound.bypassesRinger ? decision.sound.volume : nil,
            unrecognizedLevel: UnrecognizedLevel(notification)
        )
    }

    var focusPhrase: String { focus?.phrase ?? "the Focus" }
    var focusSubject: String {
        let phrase = focusPhrase
        return phrase.prefix(1).uppercased() + phrase.dropFirst()
    }
    var senderPhrase: String { senderName ?? sender.map { "the sender (\($0.value))" } ?? "the sender" }
}

/// A reason code with its sentence.
public struct Explanation: Sendable, Codable, Hashable {
    public var code: ReasonCode
    public var sentence: String

    public init(code: ReasonCode, sentence: String) {
        self.code = code
        self.sentence = sentence
    }
}

extension Decision {
    /// Each reason with a sentence a person understands, in the order the rules fired.
    public func explanations(_ context: ExplanationContext) -> [Explanation] {
        reasons.map { Explanation(code: $0, sentence: $0.explanation(context)) }
    }
}
