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

    /// The condition AND-ed onto an album's WHERE clause, or nil for all.
    var sqlCondition: String? {
        var conditions: [String] = []
        if !mimeTypes.isEmpty {
            conditions.append("(" + mimeTypes.map { pattern in
                let escaped = pattern.replacingSingleQuotes
                return pattern.hasSuffix("/*") ? "mime LIKE '\(escaped.dropLast())%'" : "mime = '\(escaped)'"
            }.joined(separator: " OR ") + ")")
        }
        if !namePatterns.isEmpty {
            // GLOB is SQLite's case-sensitive shell pattern match; names are stored as bytes.
            conditions.append("(" + namePatterns.map { "CAST(name AS TEXT) GLOB '\($0.replacingSingleQuotes)'" }
                .joined(separator: " OR ") + ")")
        }
        return conditions.isEmpty ? nil : conditions.joined(separator: " AND ")
    }
}
