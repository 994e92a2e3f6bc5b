import Foundation

/// Localization files as Xcode writes them, for the tests.
enum Fixtures {
    /// The English stringsdict of WWDC 2017 session 708 ("Best Practices and What's New in User
    /// Notifications"), as Xcode's property-list editor saves it.
    static let englishCommentStringsdict = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>COMMENT_KEY</key>
        \t<dict>
        \t\t<key>NSStringLocalizedFormatKey</key>
        \t\t<string>%#@comment@</string>
        \t\t<key>comment</key>
        \t\t<dict>
        \t\t\t<key>NSStringFormatSpecTypeKey</key>
        \t\t\t<string>NSStringPluralRuleType</string>
        \t\t\t<key>NSStringFormatValueTypeKey</key>
        \t\t\t<string>u</string>
        \t\t\t<key>one</key>
        \t\t\t<string>%u Comment</string>
        \t\t\t<key>other</key>
        \t\t\t<string>%u Comments</string>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """.utf8)

    /// The Arabic stringsdict of the same session, all six categories. (The slide shows `u% تعليقات`
    /// because the editor lays the right-to-left text out visually; the file holds `%u تعليقات`.)
    static let arabicCommentStringsdict = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>COMMENT_KEY</key>
        \t<dict>
        \t\t<key>NSStringLocalizedFormatKey</key>
        \t\t<string>%#@comment@</string>
        \t\t<key>comment</key>
        \t\t<dict>
        \t\t\t<key>NSStringFormatSpecTypeKey</key>
        \t\t\t<string>NSStringPluralRuleType</string>
        \t\t\t<key>NSStringFormatValueTypeKey</key>
        \t\t\t<string>u</string>
        \t\t\t<key>zero</key>
        \t\t\t<string>لا يوجد تعليقات</string>
        \t\t\t<key>few</key>
        \t\t\t<string>%u تعليقات</string>
        \t\t\t<key>one</key>
        \t\t\t<string>تعليق واحد</string>
        \t\t\t<key>many</key>
        \t\t\t<string>%u تعليقاً</string>
        \t\t\t<key>two</key>
        \t\t\t<string>تعليقان</string>
        \t\t\t<key>other</key>
        \t\t\t<string>%u تعليقاً</string>
        \t\t</dict>
        \t</dict>
        </dict>
        </plist>

        """.utf8)

    /// An English `Localizable.strings` as Xcode exports it (comments per entry), with escapes.
    static let englishStrings = #"""
        /* Title of a game invitation (APNs title-loc-key). */
        "GAME_INVITE_TITLE" = "Game invitation";

        /* %1$@ and %2$@ are player names. */
        "GAME_PLAY_REQUEST_FORMAT" = "%@ and %@ have invited you to play Monopoly";

        // A reordered argument list.
        "SCORE_FORMAT" = "%2$@ beat %1$@ by %3$d points";

        "ESCAPES" = "Line 1\nLine 2\t\"quoted\" back\\slash caf\U00E9 \UD83D\UDE00 \101";
        "100%" = "100% done";
        "ONLY_KEY";
        unquoted_key = "Unquoted";
        "COMMENT_KEY" = "Comment (plain strings, overridden by the stringsdict)";
        """#

    /// The same kind of file in French.
    static let frenchStrings = #"""
        /* Title of a game invitation (APNs title-loc-key). */
        "GAME_INVITE_TITLE" = "Invitation à jouer";
        "GAME_PLAY_REQUEST_FORMAT" = "%@ et %@ vous invitent à jouer au Monopoly";
        "SCORE_FORMAT" = "%1$@ a perdu contre %2$@ de %3$d points";
        """#

    /// A String Catalog as Xcode 15 writes it: plural variations, substitutions, device variations,
    /// and a translation still in state `new`.
    static let catalog = Data(
        #"""
        {
          "sourceLanguage" : "en",
          "strings" : {
            "IMAGE_KEY" : {
              "extractionState" : "manual",
              "localizations" : {
                "en" : {
                  "variations" : {
                    "plural" : {
                      "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld Image" } },
                      "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld Images" } }
                    }
                  }
                },
                "pl" : {
                  "variations" : {
                    "plural" : {
                      "one" : { "stringUnit" : { "state" : "translated", "value" : "%lld zdjęcie" } },
                      "few" : { "stringUnit" : { "state" : "translated", "value" : "%lld zdjęcia" } },
                      "many" : { "stringUnit" : { "state" : "translated", "value" : "%lld zdjęć" } },
                      "other" : { "stringUnit" : { "state" : "translated", "value" : "%lld zdjęcia" } }
                    }
                  }
                }
              }
            },
            "%@ sent %lld photos" : {
              "localizations" : {
                "en" : {
                  "stringUnit" : { "state" : "translated", "value" : "%1$@ sent %#@photos@" },
                  "substitutions" : {
                    "photos" : {
                      "argNum" : 2,
                      "formatSpecifier" : "lld",
                      "variations" : {
                        "plural" : {
                          "one" : { "stringUnit" : { "state" : "translated", "value" : "a photo" } },
                          "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg photos" } }
                        }
                      }
                    }
                  }
                },
                "de" : {
                  "stringUnit" : { "state" : "translated", "value" : "%1$@ hat %#@photos@ gesendet" },
                  "substitutions" : {
                    "photos" : {
                      "argNum" : 2,
                      "formatSpecifier" : "lld",
                      "variations" : {
                        "plural" : {
                          "one" : { "stringUnit" : { "state" : "translated", "value" : "ein Foto" } },
                          "other" : { "stringUnit" : { "state" : "translated", "value" : "%arg Fotos" } }
                        }
                      }
                    }
                  }
                }
              }
            },
            "TAP_TO_OPEN" : {
              "localizations" : {
                "en" : {
                  "variations" : {
                    "device" : {
                      "iphone" : { "stringUnit" : { "state" : "translated", "value" : "Tap to open" } },
                      "mac" : { "stringUnit" : { "state" : "translated", "value" : "Click to open" } }
                    }
                  }
                },
                "fr" : { "stringUnit" : { "state" : "new", "value" : "" } },
                "pt-BR" : { "stringUnit" : { "state" : "needs_review", "value" : "Toque para abrir" } }
              }
            },
            "Only in the source language" : { }
          },
          "version" : "1.0"
        }
        """#.utf8)

    /// `text` encoded as UTF-16 with a byte-order mark.
    static func utf16(_ text: String, bigEndian: Bool) -> Data {
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            bytes += bigEndian ? pair : pair.reversed()
        }
        return Data(bytes)
    }
}
