// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import PhotoLibrary

/// "0:07", "1:02:03". Formats any value without trapping: the index only passes on plausible
/// durations, but a NaN, an infinity or 1.8e19 seconds must still not bring the window down.
/// Those (and negative durations) give nothing.
func formatDuration(_ seconds: Double) -> String {
    let rounded = seconds.rounded()
    // Below a billion seconds (31 years) the whole seconds fit an Int on every platform.
    guard rounded >= 0, rounded < 1e9, let total = Int(exactly: rounded) else { return "" }
    let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
    let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
}

extension CaptureDate {
    /// "12 March 2024", "12 марта 2024", "2024년 3월 12일": the day the photo was taken, in the
    /// person's language (the date as taken, whatever the time zone).
    var spokenDate: String {
        let text = iso8601
        let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return text }
        return Localization.date(year: parts[0], month: parts[1], day: parts[2]) ?? text
    }
}

extension Asset {
    /// The file's name as a person reads it (a name that is not UTF-8 shows GLib's stand-ins).
    var displayName: String {
        // (A file on another machine: its URI's last segment, unescaped.)
        let path = self.path.isLocationURI ? FilePath(bytes: self.path.lastName) : self.path
        return path.withCString { path in
            guard let base = g_path_get_basename(path) else { return "" }
            defer { g_free(base) }
            guard let name = g_filename_display_name(base) else { return "" }
            defer { g_free(name) }
            return String(cString: name)
        }
    }
}

extension SmartAlbum {
    /// The album's name in the person's language. `name` stays English: scripts (`--album`),
    /// the command line's output and the remembered album use it.
    var localizedName: String {
        switch self {
        case .recents: i18n("Recents")
        case .favorites: i18n("Favorites")
        case .videos: i18n("Videos")
        case .screenshots: i18n("Screenshots")
        case .selfies: i18n("Selfies")
        case .panoramas: i18n("Panoramas")
        case .bursts: i18n("Bursts")
        case .livePhotos: i18n("Live Photos")
        case .animated: i18n("Animated")
        }
    }
}

extension AlbumSummary {
    /// What the switcher shows: a smart album's name in the person's language, a folder's path.
    var displayName: String {
        if case .smart(let smart) = album { return smart.localizedName }
        return name
    }
}

/// Korean breaks lines between words, never inside one (CSS's `word-break: keep-all`), but
/// Pango (1.50) breaks between any two Hangul syllables, so a wrapped tooltip read "사진을 복사
/// 합니다" split mid-word. A WORD JOINER between the characters of each word that holds Hangul
/// keeps it whole; spaces still break. Only for text shown on screen (tooltips): a line printed
/// for a script must stay free of invisible characters.
func keepingKoreanWordsWhole(_ text: String) -> String {
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
func setTooltip(_ widget: UnsafeMutablePointer<GtkWidget>, _ text: String?) {
    gtk_widget_set_tooltip_text(widget, text.map(keepingKoreanWordsWhole))
}

/// Text for a widget that reads Pango markup (libadwaita 1.2's toast titles always do): a file
/// named "Tom & Jerry.jpg" in a message made the toast's markup invalid, and it showed nothing.
func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return text }
    defer { g_free(escaped) }
    return String(cString: escaped)
}
