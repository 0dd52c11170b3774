// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation

/// A gettext catalogue of the project (po/<language>.po), read as translators leave it, and the
/// messages the sources mark today, read with xgettext as meson does.
public struct Catalogue {
    public struct Entry: Equatable {
        public var message: String
        public var plural: String?
        /// msgstr, or msgstr[0], msgstr[1] … for a plural message.
        public var translations: [String]
        public var isFuzzy: Bool
    }

    public let language: String
    public let entries: [Entry]

    public static let poFolder = TestSupport.packageRoot.appendingPathComponent("po")

    /// The languages po/LINGUAS lists.
    public static var languages: [String] {
        let text = (try? String(contentsOf: poFolder.appendingPathComponent("LINGUAS"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    public init(language: String) throws {
        self.language = language
        let text = try String(contentsOf: Self.poFolder.appendingPathComponent("\(language).po"), encoding: .utf8)
        entries = Self.parse(text).filter { !$0.message.isEmpty }  // the header is msgid ""
    }

    /// The translation of `message` (its first form), nil when the catalogue has none.
    public func translation(of message: String) -> String? {
        guard let entry = entries.first(where: { $0.message == message }), !entry.isFuzzy,
              let first = entry.translations.first, !first.isEmpty else { return nil }
        return first
    }

    /// Compiles the catalogue as meson installs it: `<folder>/<language>/LC_MESSAGES/photopick.mo`.
    public func compile(into folder: URL) throws {
        let messages = folder.appendingPathComponent("\(language)/LC_MESSAGES")
        try FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
        let result = try TestSupport.run("/usr/bin/msgfmt", ["--check", "-o", messages.appendingPathComponent("photopick.mo").path,
                                                            Self.poFolder.appendingPathComponent("\(language).po").path])
        guard result.status == 0 else {
            throw NSError(domain: "Catalogue", code: 1, userInfo: [NSLocalizedDescriptionKey: "msgfmt: \(result.error)"])
        }
    }

    /// The messages the files of po/POTFILES.in mark now, extracted with the arguments of
    /// po/meson.build (so a message added to the code and not to the catalogues is caught).
    public static func markedMessages() throws -> [Entry] {
        let build = try String(contentsOf: poFolder.appendingPathComponent("meson.build"), encoding: .utf8)
        // The plain quoted arguments of `args: [...]` (--package-name, made with meson's project
        // name, changes no message).
        guard let start = build.range(of: "args: ["), let end = build[start.upperBound...].range(of: "]") else {
            throw NSError(domain: "Catalogue", code: 2, userInfo: [NSLocalizedDescriptionKey: "po/meson.build has no args: [...]"])
        }
        // Quoted items may hold commas ('--keyword=ni18n:1,2'): split on the quotes.
        let pieces = build[start.upperBound..<end.lowerBound].split(separator: "'", omittingEmptySubsequences: false)
        let arguments = stride(from: 1, to: pieces.count, by: 2).compactMap { index -> String? in
            // A quoted item followed by "+" is joined with meson's project name (--package-name=).
            let after = index + 1 < pieces.count ? pieces[index + 1].trimmingCharacters(in: .whitespacesAndNewlines) : ""
            return after.hasPrefix("+") ? nil : String(pieces[index])
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("photopick-\(getpid())-\(UUID().uuidString).pot")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try TestSupport.run("/usr/bin/xgettext", arguments + ["--directory", TestSupport.packageRoot.path,
                                                                           "--files-from", poFolder.appendingPathComponent("POTFILES.in").path,
                                                                           "-o", output.path])
        guard result.status == 0 else {
            throw NSError(domain: "Catalogue", code: 3, userInfo: [NSLocalizedDescriptionKey: "xgettext: \(result.error)"])
        }
        return parse(try String(contentsOf: output, encoding: .utf8)).filter { !$0.message.isEmpty }
    }

    /// The entries of a .po or .pot text (comments and obsolete "#~" entries skipped).
    static func parse(_ text: String) -> [Entry] {
        var entries: [Entry] = []
        var current: Entry?
        var field: WritableKeyPath<Entry, String>?
        var fuzzy = false
        func finish() {
            if let entry = current { entries.append(entry) }
            current = nil
            field = nil
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") {
                if current?.translations.isEmpty == false { finish() }
                if line.hasPrefix("#,") && line.contains("fuzzy") { fuzzy = true }
                continue
            }
            if line.isEmpty { finish(); continue }
            if line.hasPrefix("msgid_plural ") {
                current?.plural = unquote(line.dropFirst("msgid_plural ".count))
                field = \Entry.plural!
            } else if line.hasPrefix("msgid ") {
                finish()
                current = Entry(message: unquote(line.dropFirst("msgid ".count)), plural: nil, translations: [], isFuzzy: fuzzy)
                fuzzy = false
                field = \Entry.message
            } else if line.hasPrefix("msgstr") {
                guard let quote = line.firstIndex(of: "\"") else { continue }
                current?.translations.append(unquote(line[quote...]))
                let index = (current?.translations.count ?? 1) - 1
                field = \Entry.translations[index]
            } else if line.hasPrefix("\""), let field {
                current?[keyPath: field] += unquote(Substring(line))
            }
        }
        finish()
        return entries
    }

    private static func unquote(_ quoted: Substring) -> String {
        var text = quoted.trimmingCharacters(in: .whitespaces)
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        text = String(text.dropFirst().dropLast())
        var result = "", escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The "{name}" placeholders of a message.
    public static func placeholders(in text: String) -> Set<String> {
        var names: Set<String> = [], rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}
