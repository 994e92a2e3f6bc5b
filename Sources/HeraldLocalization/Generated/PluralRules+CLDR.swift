// swift-format-ignore-file
// GENERATED FILE — DO NOT EDIT. Regenerate with scripts/generate-plural-rules.
// Source: /usr/share/unicode/cldr/common/supplemental/plurals.xml
// CLDR version 41, cardinal plural rules (sha256 c0345021eaff7a0e38ee7e8fc58532e2e36ec5137b6c2497905e2bcf1be1b5b3).
// One case per CLDR locale group; each group's conditions are evaluated in CLDR order, then `other`.

/// A group of locales that share one set of CLDR cardinal plural rules, named after its first locale.
enum PluralRuleSet: Sendable, Hashable {
    /// bm bo dz hnj id ig ii in ja jbo jv jw kde kea km ko lkt lo ms my nqo osa root sah ses sg su th to tpi vi wo yo yue zh
    case bm
    /// am as bn doi fa gu hi kn pcm zu
    case am
    /// ff hy kab
    case ff
    /// ast ca de en et fi fy gl ia io ji lij nl sc scn sv sw ur yi
    case ast
    /// si
    case si
    /// ak bho guw ln mg nso pa ti wa
    case ak
    /// tzm
    case tzm
    /// af an asa az bal bem bez bg brx ce cgg chr ckb dv ee el eo eu fo fur gsw ha haw hu jgo jmc ka kaj kcg kk kkj kl ks ksb ku ky lb lg mas mgo ml mn mr nah nb nd ne nn nnh no nr ny nyn om or os pap ps rm rof rwk saq sd sdh seh sn so sq ss ssy st syr ta te teo tig tk tn tr ts ug uz ve vo vun wae xh xog
    case af
    /// da
    case da
    /// is
    case `is`
    /// mk
    case mk
    /// ceb fil tl
    case ceb
    /// lv prg
    case lv
    /// lag
    case lag
    /// ksh
    case ksh
    /// iu naq sat se sma smi smj smn sms
    case iu
    /// shi
    case shi
    /// mo ro
    case mo
    /// bs hr sh sr
    case bs
    /// fr
    case fr
    /// pt
    case pt
    /// it pt_PT
    case it
    /// es
    case es
    /// gd
    case gd
    /// sl
    case sl
    /// dsb hsb
    case dsb
    /// he iw
    case he
    /// cs sk
    case cs
    /// pl
    case pl
    /// be
    case be
    /// lt
    case lt
    /// mt
    case mt
    /// ru uk
    case ru
    /// br
    case br
    /// ga
    case ga
    /// gv
    case gv
    /// kw
    case kw
    /// ar ars
    case ar
    /// cy
    case cy
}

extension PluralRuleSet {
    /// The CLDR version the rules were generated from.
    static let cldrVersion = "41"

    /// Every CLDR locale with cardinal plural rules (`root` included), mapped to its group.
    static let byLocale: [String: PluralRuleSet] = [
        "bm": .bm,
        "bo": .bm,
        "dz": .bm,
        "hnj": .bm,
        "id": .bm,
        "ig": .bm,
        "ii": .bm,
        "in": .bm,
        "ja": .bm,
        "jbo": .bm,
        "jv": .bm,
        "jw": .bm,
        "kde": .bm,
        "kea": .bm,
        "km": .bm,
        "ko": .bm,
        "lkt": .bm,
        "lo": .bm,
        "ms": .bm,
        "my": .bm,
        "nqo": .bm,
        "osa": .bm,
        "root": .bm,
        "sah": .bm,
        "ses": .bm,
        "sg": .bm,
        "su": .bm,
        "th": .bm,
        "to": .bm,
        "tpi": .bm,
        "vi": .bm,
        "wo": .bm,
        "yo": .bm,
        "yue": .bm,
        "zh": .bm,
        "am": .am,
        "as": .am,
        "bn": .am,
        "doi": .am,
        "fa": .am,
        "gu": .am,
        "hi": .am,
        "kn": .am,
        "pcm": .am,
        "zu": .am,
        "ff": .ff,
        "hy": .ff,
        "kab": .ff,
        "ast": .ast,
        "ca": .ast,
        "de": .ast,
        "en": .ast,
        "et": .ast,
        "fi": .ast,
        "fy": .ast,
        "gl": .ast,
        "ia": .ast,
        "io": .ast,
        "ji": .ast,
        "lij": .ast,
        "nl": .ast,
        "sc": .ast,
        "scn": .ast,
        "sv": .ast,
        "sw": .ast,
        "ur": .ast,
        "yi": .ast,
        "si": .si,
        "ak": .ak,
        "bho": .ak,
        "guw": .ak,
        "ln": .ak,
        "mg": .ak,
        "nso": .ak,
        "pa": .ak,
        "ti": .ak,
        "wa": .ak,
        "tzm": .tzm,
        "af": .af,
        "an": .af,
        "asa": .af,
        "az": .af,
        "bal": .af,
        "bem": .af,
        "bez": .af,
        "bg": .af,
        "brx": .af,
        "ce": .af,
        "cgg": .af,
        "chr": .af,
        "ckb": .af,
        "dv": .af,
        "ee": .af,
        "el": .af,
        "eo": .af,
        "eu": .af,
        "fo": .af,
        "fur": .af,
        "gsw": .af,
        "ha": .af,
        "haw": .af,
        "hu": .af,
        "jgo": .af,
        "jmc": .af,
        "ka": .af,
        "kaj": .af,
        "kcg": .af,
        "kk": .af,
        "kkj": .af,
        "kl": .af,
        "ks": .af,
        "ksb": .af,
        "ku": .af,
        "ky": .af,
        "lb": .af,
        "lg": .af,
        "mas": .af,
        "mgo": .af,
        "ml": .af,
        "mn": .af,
        "mr": .af,
        "nah": .af,
        "nb": .af,
        "nd": .af,
        "ne": .af,
        "nn": .af,
        "nnh": .af,
        "no": .af,
        "nr": .af,
        "ny": .af,
        "nyn": .af,
        "om": .af,
        "or": .af,
        "os": .af,
        "pap": .af,
        "ps": .af,
        "rm": .af,
        "rof": .af,
        "rwk": .af,
        "saq": .af,
        "sd": .af,
        "sdh": .af,
        "seh": .af,
        "sn": .af,
        "so": .af,
        "sq": .af,
        "ss": .af,
        "ssy": .af,
        "st": .af,
        "syr": .af,
        "ta": .af,
        "te": .af,
        "teo": .af,
        "tig": .af,
        "tk": .af,
        "tn": .af,
        "tr": .af,
        "ts": .af,
        "ug": .af,
        "uz": .af,
        "ve": .af,
        "vo": .af,
        "vun": .af,
        "wae": .af,
        "xh": .af,
        "xog": .af,
        "da": .da,
        "is": .`is`,
        "mk": .mk,
        "ceb": .ceb,
        "fil": .ceb,
        "tl": .ceb,
        "lv": .lv,
        "prg": .lv,
        "lag": .lag,
        "ksh": .ksh,
        "iu": .iu,
        "naq": .iu,
        "sat": .iu,
        "se": .iu,
        "sma": .iu,
        "smi": .iu,
        "smj": .iu,
        "smn": .iu,
        "sms": .iu,
        "shi": .shi,
        "mo": .mo,
        "ro": .mo,
        "bs": .bs,
        "hr": .bs,
        "sh": .bs,
        "sr": .bs,
        "fr": .fr,
        "pt": .pt,
        "it": .it,
        "pt_PT": .it,
        "es": .es,
        "gd": .gd,
        "sl": .sl,
        "dsb": .dsb,
        "hsb": .dsb,
        "he": .he,
        "iw": .he,
        "cs": .cs,
        "sk": .cs,
        "pl": .pl,
        "be": .be,
        "lt": .lt,
        "mt": .mt,
        "ru": .ru,
        "uk": .ru,
        "br": .br,
        "ga": .ga,
        "gv": .gv,
        "kw": .kw,
        "ar": .ar,
        "ars": .ar,
        "cy": .cy,
    ]

    /// The categories the group uses, in CLDR order (zero, one, two, few, many, other).
    var categories: [PluralCategory] {
        switch self {
        case .bm: [.other]
        case .am: [.one, .other]
        case .ff: [.one, .other]
        case .ast: [.one, .other]
        case .si: [.one, .other]
        case .ak: [.one, .other]
        case .tzm: [.one, .other]
        case .af: [.one, .other]
        case .da: [.one, .other]
        case .`is`: [.one, .other]
        case .mk: [.one, .other]
        case .ceb: [.one, .other]
        case .lv: [.zero, .one, .other]
        case .lag: [.zero, .one, .other]
        case .ksh: [.zero, .one, .other]
        case .iu: [.one, .two, .other]
        case .shi: [.one, .few, .other]
        case .mo: [.one, .few, .other]
        case .bs: [.one, .few, .other]
        case .fr: [.one, .many, .other]
        case .pt: [.one, .many, .other]
        case .it: [.one, .many, .other]
        case .es: [.one, .many, .other]
        case .gd: [.one, .two, .few, .other]
        case .sl: [.one, .two, .few, .other]
        case .dsb: [.one, .two, .few, .other]
        case .he: [.one, .two, .many, .other]
        case .cs: [.one, .few, .many, .other]
        case .pl: [.one, .few, .many, .other]
        case .be: [.one, .few, .many, .other]
        case .lt: [.one, .few, .many, .other]
        case .mt: [.one, .few, .many, .other]
        case .ru: [.one, .few, .many, .other]
        case .br: [.one, .two, .few, .many, .other]
        case .ga: [.one, .two, .few, .many, .other]
        case .gv: [.one, .two, .few, .many, .other]
        case .kw: [.zero, .one, .two, .few, .many, .other]
        case .ar: [.zero, .one, .two, .few, .many, .other]
        case .cy: [.zero, .one, .two, .few, .many, .other]
        }
    }
}
