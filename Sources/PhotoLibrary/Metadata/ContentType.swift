import CGLib

/// MIME types from GIO's content-type guessing, which reads the shared-mime-info database: file
/// name globs and magic bytes. No extension table of our own.
public enum ContentType {
    public struct Guess: Sendable {
        public var mimeType: String
        public var isUncertain: Bool

        public var isMedia: Bool { mimeType.hasPrefix("image/") || mimeType.hasPrefix("video/") }
        public var isVideo: Bool { mimeType.hasPrefix("video/") }
    }

    /// The type a file name suggests, without reading the file.
    public static func guess(fileName: [UInt8]) -> Guess {
        var terminated = fileName
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { name in
                guess(name: name, data: nil, count: 0)
            }
        }
    }

    /// The type the first bytes of a file show (magic numbers only; the name is not consulted, so a
    /// PNG named .jpg is a PNG).
    public static func guess(content: [UInt8]) -> Guess {
        content.withUnsafeBufferPointer { buffer in
            guess(name: nil, data: buffer.baseAddress, count: buffer.count)
        }
    }

    private static func guess(name: UnsafePointer<CChar>?, data: UnsafePointer<UInt8>?, count: Int) -> Guess {
        var uncertain: gboolean = 0
        guard let type = g_content_type_guess(name, data, gsize(count), &uncertain) else {
            return Guess(mimeType: "application/octet-stream", isUncertain: true)
        }
        defer { g_free(type) }
        var mimeType = String(cString: type)
        if let mime = g_content_type_get_mime_type(type) {
            mimeType = String(cString: mime)
            g_free(mime)
        }
        return Guess(mimeType: mimeType, isUncertain: uncertain != 0)
    }

    /// A readable name for a type, such as "plain text document", for error messages.
    public static func description(of mimeType: String) -> String {
        guard let type = g_content_type_from_mime_type(mimeType) else { return mimeType }
        defer { g_free(type) }
        guard let text = g_content_type_get_description(type) else { return mimeType }
        defer { g_free(text) }
        return String(cString: text)
    }
}
