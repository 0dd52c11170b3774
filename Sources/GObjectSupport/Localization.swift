// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import Glibc

/// The words, numbers and dates a person reads, in their language: gettext for the words (the
/// "photopick" domain, catalogues in po/), the C locale's digit grouping for numbers, and GLib's
/// date formatting. `photopick` binds the domain at start; until then, and for any message a
/// catalogue lacks, the English original shows.
///
/// Messages are marked with `i18n` and `ni18n` (po/meson.build's xgettext keywords). They take
/// string literals only: xgettext reads the sources, so a message made at run time would never
/// reach a translator. Values go in as named placeholders, `{count}`, which translators can move.
public enum Localization {
    public static let domain = "photopick"

    /// Reads catalogues from `directory` (`<directory>/ru/LC_MESSAGES/photopick.mo`), as UTF-8
    /// whatever the locale's charset (GTK wants UTF-8).
    public static func bind(localeDirectory directory: String) {
        bindtextdomain(domain, directory)
        bind_textdomain_codeset(domain, "UTF-8")
    }

    /// Where an installed `photopick` finds its catalogues: `<prefix>/share/locale` beside
    /// `<prefix>/bin/photopick`, as meson installs them. Nil when that folder is missing (a run
    /// from a checkout): the messages then stay English.
    public static func installedLocaleDirectory(executable: String) -> String? {
        guard let resolved = realpath(executable, nil) else { return nil }
        defer { free(resolved) }
        var path = String(cString: resolved)
        for _ in 0..<2 {  // …/bin/photopick → …
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = String(path[..<slash])
        }
        let directory = path + "/share/locale"
        var info = stat()
        return stat(directory, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? directory : nil
    }

    /// Where the embedded picker (libphotopick-1.so in `libraryFolder`, `<prefix>/lib` or a
    /// multiarch folder under it) finds the catalogues of its prefix.
    public static func installedLocaleDirectory(libraryFolder: String) -> String? {
        var path = libraryFolder
        for _ in 0..<2 {
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = String(path[..<slash])
            let directory = path + "/share/locale"
            var info = stat()
            if stat(directory, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return directory }
        }
        return nil
    }

    /// "60,000" in English, "60 000" in Russian: the locale's thousands separator and grouping.
    /// Locales without one (C, POSIX) get English's comma rather than "60000".
    public static func number(_ value: Int) -> String {
        let separator = localeconv().pointee.thousands_sep.map { String(cString: $0) } ?? ""
        guard !separator.isEmpty else { return commaGrouped(value) }
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%'ld", $0) }
        guard written > 0, written < buffer.count else { return commaGrouped(value) }
        return String(cString: buffer)
    }

    private static func commaGrouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// A calendar date in the locale's words: "12 March 2024", "12 марта 2024", "2024년 3월 12일".
    /// The pattern is itself a message (translators choose the order); GLib supplies month names
    /// in the grammatical case the locale's C library gives them. Nil for an impossible date.
    public static func date(year: Int, month: Int, day: Int) -> String? {
        guard let time = g_date_time_new_utc(Int32(clamping: year), Int32(clamping: month), Int32(clamping: day), 0, 0, 0)
        else { return nil }
        defer { g_date_time_unref(time) }
        // Translators: how a photo's date reads, in g_date_time_format's codes: %-d the day
        // without padding, %B the month's name, %Y the year. For example "%Y년 %B %-d일".
        let pattern = i18n("%-d %B %Y")
        guard let text = g_date_time_format(time, pattern) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}

extension Localization {
    /// A month in the locale's words: "March 2024", "март 2024", "2024년 3월".
    public static func month(year: Int, month: Int) -> String? {
        guard let time = g_date_time_new_utc(Int32(clamping: year), Int32(clamping: month), 1, 0, 0, 0) else { return nil }
        defer { g_date_time_unref(time) }
        // Translators: a month of a year, in g_date_time_format's codes: %OB the month's name as
        // it stands alone (nominative), %Y the year. For example "%Y년 %B".
        let pattern = i18n("%OB %Y")
        guard let text = g_date_time_format(time, pattern) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}

/// Marks a message for translation where it is written, leaving it English there: for tables
/// that also feed English output (the option tables make the man page) and for text GLib
/// translates itself (GOptionContext's help, through the domain). `Localization.translate`
/// looks such a message up where it is shown. (gettext's usual name for this marker.)
public func N_(_ message: StaticString) -> String {
    message.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
}

extension Localization {
    /// The translation of a message marked with `N_`.
    public static func translate(_ message: String) -> String {
        message.withCString { String(cString: g_dgettext(domain, $0)) }
    }
}

/// A message in the person's language (or the English original).
public func i18n(_ message: StaticString) -> String {
    // gettext answers with its argument when there is no translation, so the argument must
    // outlive the call: a literal's bytes (NUL-terminated, static) do.
    String(cString: g_dgettext(Localization.domain, message.cString))
}

/// A message with named values, "{name}", put in after translation.
public func i18n(_ message: StaticString, _ values: [String: String]) -> String {
    fill(i18n(message), values)
}

/// A message whose words follow a count ("1 photo", "2 photos"; Russian has three forms): the
/// locale's plural rule picks the form. `{count}` in it becomes the count, grouped by the locale.
public func ni18n(_ singular: StaticString, _ plural: StaticString, _ count: Int, _ values: [String: String] = [:]) -> String {
    let form = String(cString: g_dngettext(Localization.domain, singular.cString, plural.cString, gulong(clamping: count.magnitude)))
    return fill(form, values.merging(["count": Localization.number(count)]) { _, count in count })
}

/// Puts the values in for their "{name}" in one pass over the message: a value is never read
/// again, so a file named "{reason}" stays as it is. A placeholder without a value stays too.
func fill(_ text: String, _ values: [String: String]) -> String {
    var result = "", rest = text[...]
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
        result += rest[..<open]
        let name = String(rest[rest.index(after: open)..<close])
        result += values[name] ?? String(rest[open...close])
        rest = rest[rest.index(after: close)...]
    }
    return result + rest
}

extension StaticString {
    /// The literal's bytes as a C string: static storage, with the NUL the compiler puts after them.
    fileprivate var cString: UnsafePointer<CChar> {
        precondition(hasPointerRepresentation, "a message is a string literal")
        return UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
