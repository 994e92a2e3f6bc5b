import HeraldCore

// The one JSON shape of a decision (snake_case), as clients see it in the list, one notification,
// the live streams and `GET /v1/notifications/{id}/decision`, and as the store keeps it:
//
//     {"disposition": "alerted", "banner": "banner",
//      "sound": {"plays": true, "bypasses_ringer": false, "volume": null},
//      "badge": true, "lock_screen": true, "notification_center": true, "announce": false,
//      "preview": {"hidden": false},
//      "effective_level": "active", "focus_id": null, "reason_codes": []}
//
// A hidden preview is `{"hidden": true, "placeholder": …, "thread_count": 2, "locale": "en",
// "shows_title": false, "shows_subtitle": false}`. Every key is written (absent values as null).
// The OpenAPI document's `Decision` schema describes it; the server adds `context`, `display` and
// `actions` beside these keys (`DecisionRecord`).

extension Decision {
    enum CodingKeys: String, CodingKey {
        case disposition, banner, sound, badge, announce, preview
        case lockScreen = "lock_screen"
        case notificationCenter = "notification_center"
        case effectiveLevel = "effective_level"
        case focusID = "focus_id"
        case reasons = "reason_codes"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let bannerName = try container.decode(String.self, forKey: .banner)
        guard let banner = AlertStyle(name: bannerName) else {
            throw DecodingError.dataCorruptedError(
                forKey: .banner, in: container, debugDescription: "Unknown banner `\(bannerName)`.")
        }
        self.init(
            disposition: try container.decode(Disposition.self, forKey: .disposition),
            banner: banner,
            sound: try container.decode(SoundDecision.self, forKey: .sound),
            badge: try container.decode(Bool.self, forKey: .badge),
            lockScreen: try container.decode(Bool.self, forKey: .lockScreen),
            notificationCenter: try container.decode(Bool.self, forKey: .notificationCenter),
            announce: try container.decode(Bool.self, forKey: .announce),
            preview: try container.decode(PreviewDecision.self, forKey: .preview),
            effectiveLevel: try container.decode(InterruptionLevel.self, forKey: .effectiveLevel),
            focusID: try container.decodeIfPresent(String.self, forKey: .focusID),
            reasons: try container.decode(ReasonCodes.self, forKey: .reasons)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(disposition, forKey: .disposition)
        try container.encode(banner.name, forKey: .banner)
        try container.encode(sound, forKey: .sound)
        try container.encode(badge, forKey: .badge)
        try container.encode(lockScreen, forKey: .lockScreen)
        try container.encode(notificationCenter, forKey: .notificationCenter)
        try container.encode(announce, forKey: .announce)
        try container.encode(preview, forKey: .preview)
        try container.encode(effectiveLevel, forKey: .effectiveLevel)
        try container.encode(focusID, forKey: .focusID)
        try container.encode(reasons, forKey: .reasons)
    }
}

extension AlertStyle {
    /// The name in the API (`none`, `banner`, `alert`), as the settings routes spell it.
    public var name: String {
        switch self {
        case .none: "none"
        case .banner: "banner"
        case .alert: "alert"
        }
    }

    public init?(name: String) {
        guard let style = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = style
    }
}

extension SoundDecision {
    enum CodingKeys: String, CodingKey {
        case plays, volume
        case bypassesRinger = "bypasses_ringer"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            plays: try container.decode(Bool.self, forKey: .plays),
            bypassesRinger: try container.decode(Bool.self, forKey: .bypassesRinger),
            volume: try container.decodeIfPresent(Double.self, forKey: .volume)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(plays, forKey: .plays)
        try container.encode(bypassesRinger, forKey: .bypassesRinger)
        try container.encode(volume, forKey: .volume)
    }
}

extension PreviewDecision {
    enum CodingKeys: String, CodingKey {
        case hidden, placeholder, locale
        case threadCount = "thread_count"
        case showsTitle = "shows_title"
        case showsSubtitle = "shows_subtitle"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(Bool.self, forKey: .hidden) else {
            self = .full
            return
        }
        self = .hidden(
            HiddenPreview(
                placeholder: try container.decodeIfPresent(String.self, forKey: .placeholder),
                threadCount: try container.decode(Int.self, forKey: .threadCount),
                locale: try container.decode(String.self, forKey: .locale),
                showsTitle: try container.decode(Bool.self, forKey: .showsTitle),
                showsSubtitle: try container.decode(Bool.self, forKey: .showsSubtitle)
            ))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .full:
            try container.encode(false, forKey: .hidden)
        case .hidden(let hidden):
            try container.encode(true, forKey: .hidden)
            try container.encode(hidden.placeholder, forKey: .placeholder)
            try container.encode(hidden.threadCount, forKey: .threadCount)
            try container.encode(hidden.locale, forKey: .locale)
            try container.encode(hidden.showsTitle, forKey: .showsTitle)
            try container.encode(hidden.showsSubtitle, forKey: .showsSubtitle)
        }
    }
}
