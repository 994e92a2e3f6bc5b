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

    public init(
        appName: String, focus: FocusMode? = nil, sender: PersonHandle? = nil, senderName: String? = nil,
        audioRoute: AudioRoute = .none, criticalVolume: Double? = nil
    ) {
        self.appName = appName
        self.focus = focus
        self.sender = sender
        self.senderName = senderName
        self.audioRoute = audioRoute
        self.criticalVolume = criticalVolume
    }

    /// The context of a decision made by `decide` with these inputs.
    public init(notification: NotificationFacts, app: App, focus: ActiveFocus?, device: DeviceState, decision: Decision) {
        self.init(
            appName: app.name, focus: focus?.mode, sender: notification.sender, audioRoute: device.audioRoute,
            criticalVolume: decision.sound.bypassesRinger ? decision.sound.volume : nil
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
