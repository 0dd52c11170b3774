// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGtk
import Glibc
import GObjectSupport
import GTKSupport
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
        let day = calendarDay
        return SpokenDays.shared.text(of: day) ?? iso8601
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
        if album == .recentlyPicked { return i18n("Recently Picked") }
        return name
    }
}

/// The days' words, made once each: a cell's spoken name says its photo's day at each bind, and
/// formatting it (the ISO text, gettext, g_date_time_format) was a fifth of a bind's time while
/// scrolling (perf, 2026-12-06). A library's photos fall on a few thousand days at most.
final class SpokenDays: @unchecked Sendable {  // `texts` is behind `lock`
    static let shared = SpokenDays()
    private let lock = Lock()
    private var texts: [Int: String?] = [:]
    /// The language and locale the texts are in: another (a program may set another before it
    /// makes its next picker) and they are made again.
    private var language = ""

    /// The day in the person's words; nil where GLib cannot say it (before year 1, after 9999).
    func text(of day: (year: Int, month: Int, day: Int)) -> String? {
        let key = (day.year &* 16 &+ day.month) &* 32 &+ day.day
        let language = Self.currentLanguage()
        if let known = lock.withLock({ language == self.language ? texts[key] : nil }) { return known }
        let text = Localization.date(year: day.year, month: day.month, day: day.day)
        lock.withLock {
            if language != self.language || texts.count >= 8192 {
                texts.removeAll()
                self.language = language
            }
            texts[key] = text
        }
        return text
    }

    /// What the words depend on: the month names' locale, the translations' and LANGUAGE.
    private static func currentLanguage() -> String {
        let time = setlocale(LC_TIME, nil).map { String(cString: $0) } ?? ""
        let messages = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? ""
        let preferred = getenv("LANGUAGE").map { String(cString: $0) } ?? ""
        return time + "|" + messages + "|" + preferred
    }
}
