// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
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
        if album == .recentlyPicked { return i18n("Recently Picked") }
        return name
    }
}
