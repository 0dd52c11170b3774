// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

/// MIME types from GIO's content-type guessing, which reads the shared-mime-info database: file
/// name globs and magic bytes. The four formats most photos are (JPEG, PNG, GIF, WebP) are
/// recognised first by their signatures and names, with GIO's own answers (a test holds them
/// equal): GIO's magic matching was a fifth of the time of indexing a new library. So are the
/// videos phones and cameras write (MP4, QuickTime, WebM).
public enum ContentType {
    public struct Guess: Sendable {
        public var mimeType: String
        public var isUncertain: Bool

        public var isMedia: Bool { mimeType.hasPrefix("image/") || mimeType.hasPrefix("video/") }
        public var isVideo: Bool { mimeType.hasPrefix("video/") }
    }

    /// The type a file name suggests, without reading the file.
    public static func guess(fileName: [UInt8]) -> Guess {
        if let common = commonType(fileName: fileName) { return Guess(mimeType: common, isUncertain: false) }
        return gioGuess(fileName: fileName)
    }

    /// The type of the files a shell pattern names by a fixed suffix (`*.jpg`, `IMG_*.JPG`, and
    /// `*.[jJ][pP][gG]` as GTK writes a suffix for a case-insensitive match), or nil when the
    /// suffix is not fixed (`*`, `*.*`, `photo.?ng`): such a pattern may name any file.
    public static func guess(namePattern pattern: String) -> Guess? {
        guard let dot = pattern.lastIndex(of: ".") else { return nil }
        var suffix = ""
        var characters = pattern[pattern.index(after: dot)...].makeIterator()
        while let character = characters.next() {
            switch character {
            case "*", "?", "\\": return nil
            case "[":
                // A class of one letter in its cases ([jJ]) is that letter; any other is not fixed.
                var members: [Character] = []
                while let member = characters.next(), member != "]" { members.append(member) }
                guard let first = members.first, members.allSatisfy({ $0.lowercased() == first.lowercased() }) else { return nil }
                suffix.append(first)
            default: suffix.append(character)
            }
        }
        guard !suffix.isEmpty else { return nil }
        return guess(fileName: Array("file.\(suffix.lowercased())".utf8))
    }

    static func gioGuess(fileName: [UInt8]) -> Guess {
        var terminated = fileName
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { name in
                guess(name: name, data: nil, count: 0)
            }
        }
    }

    /// Containers GStreamer plays video from that shared-mime-info names by their format, not as
    /// video (an .mkv's bytes are "Matroska stream", a .wmv's ASF), and the video type each is when
    /// its name does not say. The index and the thumbnailer read types through this one table: the
    /// thumbnailer once took such a video for an image and cached it as damaged (issue 40, point 2).
    public static let videoContainers = [
        "application/x-matroska": "video/x-matroska",
        "application/vnd.ms-asf": "video/x-ms-asf",
        "application/ogg": "video/ogg",
    ]

    /// The type a file's first bytes show, a video container taken for the video it holds: the
    /// type its name says when that is a video, else the container's video type. (Named as audio,
    /// it is the container it is: an .mka, a .wma.)
    public static func guess(content: [UInt8], fileName: [UInt8]) -> Guess {
        let found = guess(content: content)
        guard !found.isMedia, let video = videoContainers[found.mimeType] else { return found }
        let named = guess(fileName: fileName)
        if named.mimeType.hasPrefix("audio/") { return found }
        return named.isVideo ? named : Guess(mimeType: video, isUncertain: false)
    }

    /// The type the first bytes of a file show (magic numbers only; the name is not consulted, so a
    /// PNG named .jpg is a PNG).
    public static func guess(content: [UInt8]) -> Guess {
        if let common = commonType(content: content) { return Guess(mimeType: common, isUncertain: false) }
        return gioGuess(content: content)
    }

    static func gioGuess(content: [UInt8]) -> Guess {
        content.withUnsafeBufferPointer { buffer in
            guess(name: nil, data: buffer.baseAddress, count: buffer.count)
        }
    }

    /// JPEG, PNG, GIF and WebP by their signatures, and the videos phones and cameras write
    /// (MP4, QuickTime, WebM) by their first box or element: GIO's magic matching took 75-90 µs
    /// for each video, a fifth of a first run's reading at 60,000 files (2,700 of them videos).
    static func commonType(content bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        // An ISO media file's first box names its brand. Only the brands shared-mime-info gives
        // one type by that box alone (HEIF, AVIF and 3GPP share the box and are left to GIO).
        if starts(Array("ftyp".utf8), at: 4) {
            for brand in ["isom", "mp41", "mp42"] where starts(Array(brand.utf8), at: 8) { return "video/mp4" }
            if starts(Array("qt  ".utf8), at: 8) { return "video/quicktime" }
        }
        if starts([0x1A, 0x45, 0xDF, 0xA3]), isWebM(bytes) { return "video/webm" }
        return nil
    }

    /// An EBML header whose document type is "webm": its DocType element (0x4282, a one-byte
    /// size of 4) within the header's first 64 bytes, where shared-mime-info looks for it.
    private static func isWebM(_ bytes: [UInt8]) -> Bool {
        let webm = Array("webm".utf8)
        var offset = 5
        while offset + 7 <= min(bytes.count, 65) {
            if bytes[offset] == 0x42, bytes[offset + 1] == 0x82, bytes[offset + 2] == 0x84,
               bytes[(offset + 3)..<(offset + 7)].elementsEqual(webm) { return true }
            offset += 1
        }
        return false
    }

    /// JPEG, PNG, GIF and WebP by their usual names (any case).
    static func commonType(fileName: [UInt8]) -> String? {
        guard let dot = fileName.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return nil }
        let suffix = fileName[(dot + 1)...]
        guard suffix.count <= 4 else { return nil }
        switch String(decoding: suffix, as: UTF8.self).lowercased() {
        case "jpg", "jpeg", "jpe": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        default: return nil
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
    /// Whether `text` is shaped like a MIME type ("image/svg+xml"): a type and a subtype of
    /// letters, digits and marks, as a message from a worker must hold.
    static func isPlausibleMIMEType(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...127).contains(bytes.count), bytes.filter({ $0 == UInt8(ascii: "/") }).count == 1,
              bytes.first != UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
        return bytes.allSatisfy { (0x21...0x7e).contains($0) }
    }

    public static func description(of mimeType: String) -> String {
        guard let type = g_content_type_from_mime_type(mimeType) else { return mimeType }
        defer { g_free(type) }
        guard let text = g_content_type_get_description(type) else { return mimeType }
        defer { g_free(text) }
        return String(cString: text)
    }
}
