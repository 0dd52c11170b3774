// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

/// A month or a year typed in the album search ("March 2024", "март 2024", "2024-03", "2019"):
/// a place in the open album to go to (issue 41).
struct DateDestination: Equatable {
    let year: Int
    /// 1-12; nil for the whole year (its newest month).
    let month: Int?

    /// What the row says: "Go to March 2024", "Go to 2019".
    var title: String {
        let when = month.flatMap { Localization.month(year: year, month: $0) } ?? String(year)
        return i18n("Go to {date}", ["date": when])
    }

    /// `text` (in lower case) as a destination: a four-digit year, with a month's name (in
    /// English or the person's language, three letters at least) or number before or after it.
    static func parse(_ text: String) -> DateDestination? {
        let words = text.lowercased().split { $0 == " " || $0 == "-" || $0 == "/" || $0 == "." || $0 == "," }.map(String.init)
        guard (1...2).contains(words.count) else { return nil }
        guard let yearIndex = words.firstIndex(where: { $0.count == 4 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(words[yearIndex]), (1800...9999).contains(year) else { return nil }
        guard words.count == 2 else { return DateDestination(year: year, month: nil) }
        let other = words[1 - yearIndex]
        if other.allSatisfy(\.isNumber), let month = Int(other), (1...12).contains(month) { return DateDestination(year: year, month: month) }
        guard other.count >= 3 else { return nil }
        for month in 1...12 where monthNames(month).contains(where: { $0.hasPrefix(other) }) {
            return DateDestination(year: year, month: month)
        }
        return nil
    }

    /// A month's names, lower case: English, and the person's language's as it stands alone and
    /// in a date ("март", "марта").
    private static func monthNames(_ month: Int) -> [String] {
        let english = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        var names = [english[month - 1]]
        guard let time = g_date_time_new_utc(2000, Int32(month), 1, 0, 0, 0) else { return names }
        defer { g_date_time_unref(time) }
        for code in ["%OB", "%B", "%b"] {
            if let text = g_date_time_format(time, code) {
                names.append(String(cString: text).lowercased())
                g_free(text)
            }
        }
        return names
    }
}
