// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import CGLib
import Basics
import Glibc
import PhotoLibrary

/// The freedesktop thumbnail cache on disk ($XDG_CACHE_HOME/thumbnails), shared with GNOME Files,
/// gThumb and every other program that follows the Thumbnail Managing Standard: files named by
/// the MD5 of the original's URI, PNG tEXt keys that say which file version they show, 0600 files
/// in 0700 folders, written under a temporary name and renamed, and failure records so a broken
/// file is not decoded again until it changes.
public final class ThumbnailCache: Sendable {
    public let root: FilePath
    /// `fail/<app>-<version>/`.
    public let failureFolderName: String

    /// The version failures are recorded under: the program's, and the rules of its decoding,
    /// raised when a file that failed would now decode, so that a record made under the old
    /// rules is not believed. (2: before issue 40's point 2, a Matroska or ASF video went to the
    /// image decoder, and its cell stayed "Damaged" from the record.)
    public static let failureVersion = photopickVersion + "+rules2"

    public init(root: FilePath = XDGDirectories.cacheHome.appending("thumbnails"),
                application: String = "photopick", version: String = ThumbnailCache.failureVersion) {
        self.root = root
        self.failureFolderName = "\(application)-\(version)"
    }

    /// What a thumbnail records about the file it shows.
    public struct Original: Sendable {
        public let path: FilePath
        public let uri: String
        /// Seconds, as Thumb::MTime has it.
        public let modificationTime: Int64
        public let size: Int64
        public let mimeType: String?

        public init(path: FilePath, modificationTime: Int64, size: Int64, mimeType: String?) throws(ThumbnailCacheError) {
            self.path = path
            self.uri = try ThumbnailCache.uri(for: path)
            self.modificationTime = modificationTime
            self.size = size
            self.mimeType = mimeType
        }

        private init(path: FilePath, uri: String, modificationTime: Int64, size: Int64, mimeType: String?) {
            self.path = path
            self.uri = uri
            self.modificationTime = modificationTime
            self.size = size
            self.mimeType = mimeType
        }

        func with(mimeType: String?) -> Original {
            Original(path: path, uri: uri, modificationTime: modificationTime, size: size, mimeType: mimeType)
        }
    }

    // MARK: Names

    /// The file:// URI of an absolute path, percent-encoded as GLib does.
    /// A file on another machine is named by its location URI, as the thumbnail spec says of
    /// non-local files (escaped as GLib escapes a path: Nautilus finds the same thumbnails).
    public static func uri(for path: FilePath) throws(ThumbnailCacheError) -> String {
        if path.isLocationURI { return path.displayString }
        var error: UnsafeMutablePointer<GError>?
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, &error) }) else {
            throw ThumbnailCacheError(PixbufError(taking: error).message)
        }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// Lower-case hex MD5 of the URI, plus ".png".
    public static func fileName(forURI uri: String) -> String {
        let digest = g_compute_checksum_for_string(G_CHECKSUM_MD5, uri, -1)!
        defer { g_free(digest) }
        return String(cString: digest) + ".png"
    }

    public func path(for original: Original, flavor: ThumbnailFlavor) -> FilePath {
        root.appending(flavor.directoryName).appending(Self.fileName(forURI: original.uri))
    }

    public func failurePath(for original: Original) -> FilePath {
        root.appending("fail").appending(failureFolderName).appending(Self.fileName(forURI: original.uri))
    }

    /// Where the crash journal of decodes made in this process is kept: in the cache's own
    /// failure folder (fail/photopick-VERSION/decoding.reading-PID), made when first needed.
    /// Nil when it cannot be made.
    public func decodingJournalPath() -> String? {
        let folder = root.appending("fail").appending(failureFolderName)
        guard (try? makeDirectories(folder)) != nil else { return nil }
        return folder.appending("decoding").displayString
    }

    /// Whether a file is inside the cache itself (never thumbnailed, as the spec says).
    public func contains(_ path: FilePath) -> Bool { path.relative(to: root) != nil }

    // MARK: Reading

    /// A valid thumbnail of at least `flavor`'s size: ours or another program's, in the personal
    /// cache or in a shared repository beside the original. Larger flavours are scaled down.
    /// `isExact` is false when it came from anywhere but this flavour's own file.
    public func lookup(_ original: Original, flavor: ThumbnailFlavor) -> (pixbuf: Pixbuf, isExact: Bool)? {
        for candidate in ThumbnailFlavor.allCases where candidate >= flavor {
            if let pixbuf = validThumbnail(at: path(for: original, flavor: candidate), uri: original.uri, original: original) {
                return (pixbuf.fitting(in: flavor.pixels), candidate == flavor)
            }
        }
        for candidate in ThumbnailFlavor.allCases where candidate >= flavor {
            if let pixbuf = sharedThumbnail(original, flavor: candidate) { return (pixbuf.fitting(in: flavor.pixels), false) }
        }
        return nil
    }

    /// Where the thumbnail of `file` at `flavor` lives in the personal cache.
    public func path(forFile file: FilePath, flavor: ThumbnailFlavor) throws(ThumbnailCacheError) -> FilePath {
        root.appending(flavor.directoryName).appending(Self.fileName(forURI: try Self.uri(for: file)))
    }

    /// Whether a failure was recorded for this version of the file.
    /// Why this version of the file could not be thumbnailed, as recorded (`ls --errors`); nil
    /// when no failure of it is on record. Reads the record's keys only, never its pixels.
    public func failureReason(for original: Original) -> String? {
        guard let file = try? OpenFile(path: failurePath(for: original)), let header = ThumbnailHeader.read(file),
              header.text["Thumb::URI"] == original.uri, header.text["Thumb::MTime"].flatMap({ Int64($0) }) == original.modificationTime,
              header.text["Thumb::Size"].map({ Int64($0) == original.size }) ?? true else { return nil }
        let reason = header.text["X-Photopick::Reason"] ?? "could not be thumbnailed"
        return Self.isEndedFromOutside(reason) ? nil : reason
    }

    /// Whether an earlier build recorded this reason for a decoder ended from outside (the OOM
    /// killer, a person's kill), not by its file: such a record is not believed, and the file is
    /// tried again (issue 37: eight honest panoramas stayed "Damaged file" after a restart).
    static func isEndedFromOutside(_ reason: String) -> Bool {
        reason.hasSuffix("decoder stopped on this file")
            || ["Terminated", "Interrupt", "Hangup", "Alarm clock", "Broken pipe"].contains { reason.hasSuffix("crashed on this file (\($0))") }
    }

    public func hasFailure(for original: Original) -> Bool {
        guard validThumbnail(at: failurePath(for: original), uri: original.uri, original: original) != nil else { return false }
        // (A record of a decoder ended from outside is not believed: `isEndedFromOutside`.)
        return failureReason(for: original) != nil
    }

    /// A shared repository (`.sh_thumbnails/FLAVOUR/` beside the original) names thumbnails by
    /// the MD5 of the file's name as a relative URI, and records that name in Thumb::URI.
    private func sharedThumbnail(_ original: Original, flavor: ThumbnailFlavor) -> Pixbuf? {
        let name = original.path.lastComponent
        guard let escaped = g_uri_escape_bytes(name, gsize(name.count), "!$&'()*+,;=:@/") else { return nil }
        defer { g_free(escaped) }
        let relative = String(cString: escaped)
        let path = original.path.parent.appending(".sh_thumbnails").appending(flavor.directoryName)
            .appending(Self.fileName(forURI: relative))
        return validThumbnail(at: path, uri: relative, original: original)
    }

    private func validThumbnail(at path: FilePath, uri: String, original: Original) -> Pixbuf? {
        // Opened once (a regular file, no link followed) and decoded through that descriptor.
        guard let file = try? OpenFile(path: path), let header = ThumbnailHeader.read(file) else { return nil }
        // No flavour is larger than 1024 pixels: a PNG that says so is no thumbnail (and may be
        // a bomb). Keys written before the pixels are checked before decoding them, so a stale
        // or foreign thumbnail costs a small read, not a decode.
        let largest = ThumbnailFlavor.xxLarge.pixels
        guard header.width >= 1, header.height >= 1, header.width <= largest, header.height <= largest else { return nil }
        if let written = header.text["Thumb::URI"], written != uri { return nil }
        if let written = header.text["Thumb::MTime"], Int64(written) != original.modificationTime { return nil }
        if let written = header.text["Thumb::Size"], Int64(written) != original.size { return nil }
        guard case .success(var pixbuf) = Pixbuf.loadPNG(file) else { return nil }
        // Keys written after the pixels (ImageMagick puts them there): only GdkPixbuf's loader of
        // whole files reads those.
        if pixbuf.option("tEXt::Thumb::URI") == nil || pixbuf.option("tEXt::Thumb::MTime") == nil,
           case .success(let whole) = Pixbuf.load(file.reopenablePath) {
            pixbuf = whole
        }
        // Valid only for exactly this file version: `!=` means stale, not just `>`.
        guard pixbuf.option("tEXt::Thumb::URI") == uri,
              pixbuf.option("tEXt::Thumb::MTime").flatMap({ Int64($0) }) == original.modificationTime else { return nil }
        if let size = pixbuf.option("tEXt::Thumb::Size"), Int64(size) != original.size { return nil }
        return pixbuf
    }

    // MARK: Writing

    /// Stores a thumbnail for `original` (a temporary file renamed into place, mode 0600).
    /// `imageSize` is the original's pixel size, when known.
    public func store(_ pixbuf: Pixbuf, for original: Original, flavor: ThumbnailFlavor,
                      imageSize: (width: Int, height: Int)? = nil, movieLength: Double? = nil) throws(ThumbnailCacheError) {
        var text = keys(for: original)
        if let imageSize {
            text.append(("Thumb::Image::Width", String(imageSize.width)))
            text.append(("Thumb::Image::Height", String(imageSize.height)))
        }
        if let seconds = Plausible.duration(movieLength) { text.append(("Thumb::Movie::Length", String(Int(seconds.rounded())))) }
        try write(pixbuf.withAlpha(), to: path(for: original, flavor: flavor), text: text)
    }

    /// Records that this version of the file cannot be thumbnailed.
    public func storeFailure(for original: Original, reason: String) throws(ThumbnailCacheError) {
        guard let empty = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 1, 8, 1, 1) else { throw ThumbnailCacheError("out of memory") }
        gdk_pixbuf_fill(empty, 0)
        try write(Pixbuf(owning: empty), to: failurePath(for: original), text: keys(for: original) + [("X-Photopick::Reason", String(reason.prefix(200)))])
    }

    private func keys(for original: Original) -> [(String, String)] {
        var text = [("Thumb::URI", original.uri), ("Thumb::MTime", String(original.modificationTime)),
                    ("Thumb::Size", String(original.size)), ("Software", "Photopick \(photopickVersion)")]
        if let mime = original.mimeType { text.append(("Thumb::Mimetype", mime)) }
        return text
    }

    private func write(_ pixbuf: Pixbuf, to path: FilePath, text: [(String, String)]) throws(ThumbnailCacheError) {
        try makeDirectories(path.parent)
        ThumbnailCache.removeAbandonedTemporaries(in: path.parent)
        // mkstemp makes the temporary file 0600 before any pixel is written.
        var template = Array((path.displayString + ".photopick-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ThumbnailCacheError("cannot write in \(path.parent): \(errorDescription(errno))") }
        close(fd)
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let error = pixbuf.savePNG(to: temporary, text: text) {
            unlink(temporary)  // a full disk leaves no partial file behind
            throw ThumbnailCacheError("cannot write \(path): \(error.message)")
        }
        if path.withCString({ rename(temporary, $0) }) != 0 {
            let reason = errorDescription(errno)
            unlink(temporary)
            throw ThumbnailCacheError("cannot write \(path): \(reason)")
        }
    }

    private static let swept = Lock()
    nonisolated(unsafe) private static var sweptFolders: Set<FilePath> = []

    /// A writer killed between `mkstemp` and `rename` (a `thumbnail` run killed mid-write) leaves
    /// its `*.png.photopick-XXXXXX` behind: the first write into a folder in each process removes
    /// those more than ten minutes old (a live write takes well under a second).
    static func removeAbandonedTemporaries(in folder: FilePath, olderThan seconds: Int = 600) {
        guard swept.withLock({ sweptFolders.insert(folder).inserted }) else { return }
        guard let directory = folder.withCString({ opendir($0) }) else { return }
        defer { closedir(directory) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard name.count > 18, String(decoding: name, as: UTF8.self).contains(".png.photopick-") else { continue }
            let file = folder.appending(name)
            var info = stat()
            guard file.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG,
                  Int(now.tv_sec) - Int(info.st_mtim.tv_sec) > seconds else { continue }
            _ = file.withCString { unlink($0) }
        }
    }

    private func makeDirectories(_ folder: FilePath) throws(ThumbnailCacheError) {
        if let refusal = XDGDirectories.refusalToMake(folder) { throw ThumbnailCacheError("cannot create \(folder): \(refusal)") }
        var current: [UInt8] = []
        for component in folder.bytes.split(separator: UInt8(ascii: "/")) {
            current += [UInt8(ascii: "/")] + component
            let path = FilePath(bytes: current)
            // Folders of the cache itself are 0700; those above it are left as they are.
            let mode: mode_t = path.relative(to: root) != nil || path == root ? 0o700 : 0o755
            if path.withCString({ mkdir($0, mode) }) != 0 && errno != EEXIST {
                throw ThumbnailCacheError("cannot create \(path): \(errorDescription(errno))")
            }
        }
    }
}

public struct ThumbnailCacheError: Error, CustomStringConvertible, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

