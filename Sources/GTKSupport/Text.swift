// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk

/// Korean breaks lines between words, never inside one (CSS's `word-break: keep-all`), but
/// Pango (1.50) breaks between any two Hangul syllables, so a wrapped tooltip read "사진을 복사
/// 합니다" split mid-word. A WORD JOINER between the characters of each word that holds Hangul
/// keeps it whole; spaces still break. Only for text shown on screen (tooltips): a line printed
/// for a script must stay free of invisible characters.
public func keepingKoreanWordsWhole(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: \.isHangul) else { return text }
    var result = ""
    var previous: Character?
    for character in text {
        if let previous, !previous.isWhitespace, !character.isWhitespace,
           previous.unicodeScalars.contains(where: \.isHangul) || character.unicodeScalars.contains(where: \.isHangul) {
            result.unicodeScalars.append("\u{2060}")
        }
        result.append(character)
        previous = character
    }
    return result
}

private extension Unicode.Scalar {
    /// Hangul syllables and jamo.
    var isHangul: Bool {
        switch value {
        case 0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF: return true
        default: return false
        }
    }
}

/// A widget's tooltip, its words kept whole where the language wants that.
@MainActor public func setTooltip(_ widget: UnsafeMutablePointer<GtkWidget>, _ text: String?) {
    gtk_widget_set_tooltip_text(widget, text.map(keepingKoreanWordsWhole))
}

/// Text for a widget that reads Pango markup (libadwaita 1.2's toast titles always do): a file
/// named "Tom & Jerry.jpg" in a message made the toast's markup invalid, and it showed nothing.
public func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return text }
    defer { g_free(escaped) }
    return String(cString: escaped)
}
