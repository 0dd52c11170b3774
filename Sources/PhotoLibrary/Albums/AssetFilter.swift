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

    public static let all = AssetFilter()

    public init(mimeTypes: [String] = [], namePatterns: [String] = []) {
        self.mimeTypes = mimeTypes
        self.namePatterns = namePatterns.filter { !$0.isEmpty }
    }

    public var isEmpty: Bool { mimeTypes.isEmpty && namePatterns.isEmpty }

    /// The condition AND-ed onto an album's WHERE clause, or nil for all. Its depth does not
    /// grow with the number of patterns (SQLite refuses an expression more than 1,000 deep: a
    /// widget given 10,000 MIME types showed an empty grid, "Expression tree is too large"):
    /// types are two IN lists, names a balanced tree of ORs.
    var sqlCondition: String? {
        var conditions: [String] = []
        if !mimeTypes.isEmpty {
            var exact: [String] = [], families: [String] = []
            for pattern in Set(mimeTypes).sorted() {
                let quoted = "'" + pattern.replacingSingleQuotes + "'"
                if pattern.hasSuffix("/*") { families.append(String(quoted.dropLast(2)) + "'") } else { exact.append(quoted) }
            }
            var either: [String] = []
            if !exact.isEmpty { either.append("mime IN (" + exact.joined(separator: ", ") + ")") }
            // ("image/*": the type up to its slash, "image/".)
            if !families.isEmpty { either.append("substr(mime, 1, instr(mime, '/')) IN (" + families.joined(separator: ", ") + ")") }
            conditions.append("(" + either.joined(separator: " OR ") + ")")
        }
        if !namePatterns.isEmpty {
            // GLOB is SQLite's case-sensitive shell pattern match; names are stored as bytes.
            conditions.append(Self.balancedOr(Set(namePatterns).sorted().map { "CAST(name AS TEXT) GLOB '\($0.replacingSingleQuotes)'" }[...]))
        }
        return conditions.isEmpty ? nil : conditions.joined(separator: " AND ")
    }

    /// "(a OR b)" nested in halves: as deep as the logarithm of the count, not the count.
    private static func balancedOr(_ terms: ArraySlice<String>) -> String {
        if terms.count <= 8 { return "(" + terms.joined(separator: " OR ") + ")" }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }
}
