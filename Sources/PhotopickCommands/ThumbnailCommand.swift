// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import GObjectSupport
import Glibc
import PhotoLibrary
import Thumbnails

// MARK: photopick thumbnail


/// Writes or refreshes the freedesktop cache entries for files, through the same loader the grid
/// uses, and prints each thumbnail's path (or why there is none) in the order given. On the main
/// actor, where the loader delivers.
@MainActor func thumbnailCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = thumbnailOptions()
    guard let files = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard !files.isEmpty else { return usage(i18n("no files given (photopick thumbnail --help)")) }
    let sizeName = parser.string("size") ?? "large"
    guard let flavor = ThumbnailFlavor(name: sizeName) else {
        return usage(i18n("unknown size “{size}”: use normal, large, x-large or xx-large", ["size": sizeName]))
    }
    // What is not a regular file is said as what it is, before the loader would open it (a
    // FIFO would block the open); a symbolic link stands for the file it points to.
    var paths: [FilePath] = []
    var refused = 0
    for file in files {
        var path = FilePath(bytes: file).absolute()
        if let problem = notAFile(path) {
            warn("\(path): \(problem)")
            refused += 1
            continue
        }
        // The loader never follows links (the index does not either): give it the file itself.
        if let resolved = path.withCString({ realpath($0, nil) }) {
            path = FilePath(bytes: Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))))
            free(resolved)
        }
        paths.append(path)
    }
    let cache = ThumbnailCache()
    let loader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache))
    defer { loader.shutdown() }

    var results = [Result<Thumbnail, ThumbnailFailure>?](repeating: nil, count: paths.count)
    if paths.isEmpty { return ExitStatus.failure }
    var finished = 0
    let started = monotonicSeconds()
    for (index, path) in paths.enumerated() {
        loader.request(path, flavor: flavor) { result in
            results[index] = result
            finished += 1
        }
    }
    // Every file given is "in sight", in the order given: the loader downloads a photo on
    // another machine only for a cell in sight (the rest wait for a scroll), and a command has no
    // scroll to come (`photopick thumbnail sftp://…` waited for ever).
    loader.putFirst(paths, flavor: flavor)
    // The loader delivers on the GLib main loop, as in the window.
    var lastDrawn = 0.0
    while finished < paths.count {
        g_main_context_iteration(nil, 1)
        let now = monotonicSeconds()
        if standardErrorIsTerminal, paths.count > 1, now - lastDrawn > 0.1 {
            lastDrawn = now
            let rate = now - started > 0.5 ? ", " + i18n("{rate} per second", ["rate": String(Int(Double(finished) / (now - started)))]) : ""
            writeError("\r\u{1B}[K" + i18n("Thumbnails: {done} of {total}", ["done": String(finished), "total": String(paths.count)]) + rate)
        }
    }
    if standardErrorIsTerminal && paths.count > 1 { writeError("\r\u{1B}[K") }

    var output = StandardOutput()
    var failures = 0
    for (path, result) in zip(paths, results) {
        switch result {
        case .success(let thumbnail) where !thumbnail.isPlaceholder:
            let stored = try cache.path(forFile: path, flavor: flavor)
            if stored.isRegularFile {
                output.write(stored.bytes + [UInt8(ascii: "\n")])
            } else {
                failures += 1
                warn("\(path): " + i18n("the thumbnail could not be written to {folder} (full or read-only?)", ["folder": cache.root.displayString]))
            }
        case .success:
            failures += 1
            warn("\(path): " + i18n("no thumbnailer installed for this video (install ffmpegthumbnailer)"))
        case .failure(let failure):
            failures += 1
            warn("\(path): \(failure)")
        case nil:
            failures += 1
        }
    }
    output.flush()
    return failures + refused == 0 ? ExitStatus.success : ExitStatus.failure
}

/// Why `path` cannot have a thumbnail before anything reads it, or nil for a regular file (or a
/// link to one).
private func notAFile(_ path: FilePath) -> String? {
    var link = stat(), target = stat()
    // A missing file is the loader's to say (as for a file removed while it works).
    guard path.withCString({ lstat($0, &link) }) == 0 else { return nil }
    let isLink = link.st_mode & S_IFMT == S_IFLNK
    if isLink && path.withCString({ stat($0, &target) }) != 0 {
        return i18n("a symbolic link to a file that does not exist ({reason})", ["reason": errorDescription(errno)])
    }
    let info = isLink ? target : link
    // Whole phrases: other languages do not build them from "a symbolic link to" and a noun.
    switch info.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return isLink ? i18n("a symbolic link to a folder, not a photo or video") : i18n("a folder, not a photo or video")
    case S_IFIFO: return isLink ? i18n("a symbolic link to a named pipe, not a photo or video") : i18n("a named pipe, not a photo or video")
    case S_IFSOCK: return isLink ? i18n("a symbolic link to a socket, not a photo or video") : i18n("a socket, not a photo or video")
    default: return isLink ? i18n("a symbolic link to a device, not a photo or video") : i18n("a device, not a photo or video")
    }
}

/// `photopick thumbnail`'s options (also read by the man page).
func thumbnailOptions() -> OptionParser {
    OptionParser(parameters: N_("FILE… - make thumbnails"), summary: N_("Makes (or finds) the freedesktop thumbnails of the files and prints their paths, one a line."), options: [
        OptionParser.Option("size", short: "s", .string, N_("normal (128 px), large (256, the default), x-large (512) or xx-large (1024)"), argument: "SIZE"),
    ])
}
