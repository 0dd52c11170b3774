// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk

/// The installed AppStream metainfo, read for the About window's release notes (libadwaita 1.2
/// has no `adw_about_window_new_from_appdata`; 1.4 does).
@MainActor
enum Metainfo {
    /// The newest release's version and description (AppStream's description markup is the
    /// subset AdwAboutWindow shows: paragraphs and lists), from the first data folder that holds
    /// the file; nil when none does (a run from a checkout) or it does not read.
    static func newestReleaseNotes() -> (version: String, markup: String)? {
        var folders: [String] = []
        if let user = g_get_user_data_dir() { folders.append(String(cString: user)) }
        if let system = g_get_system_data_dirs() {
            var index = 0
            while let folder = system[index] { folders.append(String(cString: folder)); index += 1 }
        }
        for folder in folders {
            var contents: UnsafeMutablePointer<CChar>?
            var length: gsize = 0
            let path = folder + "/metainfo/" + PickerWindow.applicationID + ".metainfo.xml"
            guard g_file_get_contents(path, &contents, &length, nil) != 0, let contents else { continue }
            defer { g_free(contents) }
            if let notes = newestRelease(in: String(cString: contents)) { return notes }
        }
        return nil
    }

    /// The first <release> of the <releases> list (AppStream keeps them newest first), with its
    /// untranslated description (translations carry xml:lang and are skipped).
    static func newestRelease(in xml: String) -> (version: String, markup: String)? {
        guard let start = xml.firstRange(of: "<release "), let end = xml[start.upperBound...].firstRange(of: "</release>") else { return nil }
        let release = xml[start.lowerBound..<end.lowerBound]
        guard let versionStart = release.firstRange(of: "version=\""),
              let versionEnd = release[versionStart.upperBound...].firstRange(of: "\""),
              let open = release.firstRange(of: "<description>"), let close = release.firstRange(of: "</description>") else { return nil }
        let version = String(release[versionStart.upperBound..<versionEnd.lowerBound])
        let body = release[open.upperBound..<close.lowerBound]
        var markup = ""
        var rest = body[...]
        // Keep <p>, <ul>, <ol>, <li> without a language: the English text AdwAboutWindow shows.
        while let tag = rest.firstRange(of: "<") {
            guard let tagEnd = rest[tag.upperBound...].firstRange(of: ">") else { break }
            let name = rest[tag.lowerBound..<tagEnd.upperBound]
            let closing = "</" + String(name.dropFirst().prefix { $0.isLetter }) + ">"
            if name.contains("xml:lang"), let skip = rest[tagEnd.upperBound...].firstRange(of: closing) {
                rest = rest[skip.upperBound...]
                continue
            }
            markup += rest[rest.startIndex..<tagEnd.upperBound]
            rest = rest[tagEnd.upperBound...]
        }
        markup += rest
        let trimmed = markup.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
        return trimmed.isEmpty ? nil : (version, trimmed)
    }
}
