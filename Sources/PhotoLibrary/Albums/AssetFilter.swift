// SPDX-License-Identifier: LGPL-2.1-or-later
/// Which assets of an album a picker offers: MIME type patterns ("image/*", "video/mp4", from
/// `--mime-type`) and file name patterns ("*.jpg", from zenity's `--file-filter`). An asset must
/// match one pattern of each list that is not empty. A value: the controller and the fetch result
/// each keep their own.
public struct AssetFilter: Hashable, Sendable {
    public var mimeTypes: [String]
    /// Shell patterns (`*`, `?`, `[…]`) matched against the file name, case-sensitively, as
    /// GTK's file chooser matches zenity's filters.
    public var namePatterns: [String]

    /// A file chooser's filter (GtkFileFilter, zenity's `--file-filter`): a file is shown when it
    /// matches any one of its rules, MIME types or name patterns, and the two fields above too.
    public var choice: Choice?

    /// One filter of a file chooser's list: its rules are OR-ed, as GtkFileFilter's are.
    public struct Choice: Hashable, Sendable {
        public var mimeTypes: [String]
        public var namePatterns: [String]
        public init(mimeTypes: [String] = [], namePatterns: [String] = []) {
            self.mimeTypes = mimeTypes
            self.namePatterns = namePatterns.filter { !$0.isEmpty }
        }
    }

    public static let all = AssetFilter()

    public init(mimeTypes: [String] = [], namePatterns: [String] = [], choice: Choice? = nil) {
        self.mimeTypes = mimeTypes
        self.namePatterns = namePatterns.filter { !$0.isEmpty }
        self.choice = choice
    }

    public var isEmpty: Bool { mimeTypes.isEmpty && namePatterns.isEmpty && choice == nil }

    /// The condition AND-ed onto an album's WHERE clause, or nil for all. Its depth does not
    /// grow with the number of patterns (SQLite refuses an expression more than 1,000 deep: a
    /// widget given 10,000 MIME types showed an empty grid, "Expression tree is too large"):
    /// types are two IN lists, names a balanced tree of ORs.
    var sqlCondition: String? {
        var conditions: [String] = []
        if !mimeTypes.isEmpty { conditions.append("(" + Self.typeTerms(mimeTypes).joined(separator: " OR ") + ")") }
        if !namePatterns.isEmpty { conditions.append(Self.balancedOr(Self.nameTerms(namePatterns)[...])) }
        if let choice {
            // (A filter with no rule shows nothing, as GtkFileFilter's does.)
            let terms = Self.typeTerms(choice.mimeTypes) + Self.nameTerms(choice.namePatterns)
            conditions.append(terms.isEmpty ? "0" : Self.balancedOr(terms[...]))
        }
        return conditions.isEmpty ? nil : conditions.joined(separator: " AND ")
    }

    /// "mime IN (…)" and the families' term: either admits.
    private static func typeTerms(_ mimeTypes: [String]) -> [String] {
        guard !mimeTypes.isEmpty else { return [] }
        var exact: [String] = [], families: [String] = []
        for pattern in Set(mimeTypes).sorted() {
            let quoted = "'" + pattern.replacingSingleQuotes + "'"
            if pattern.hasSuffix("/*") { families.append(String(quoted.dropLast(2)) + "'") } else { exact.append(quoted) }
        }
        var either: [String] = []
        if !exact.isEmpty { either.append("mime IN (" + exact.joined(separator: ", ") + ")") }
        // ("image/*": the type up to its slash, "image/".)
        if !families.isEmpty { either.append("substr(mime, 1, instr(mime, '/')) IN (" + families.joined(separator: ", ") + ")") }
        return either
    }

    /// GLOB is SQLite's case-sensitive shell pattern match; names are stored as bytes.
    private static func nameTerms(_ patterns: [String]) -> [String] {
        Set(patterns).sorted().map { "CAST(name AS TEXT) GLOB '\($0.replacingSingleQuotes)'" }
    }

    /// "(a OR b)" nested in halves: as deep as the logarithm of the count, not the count.
    private static func balancedOr(_ terms: ArraySlice<String>) -> String {
        if terms.count <= 8 { return "(" + terms.joined(separator: " OR ") + ")" }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }
}
