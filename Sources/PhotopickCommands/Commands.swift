// SPDX-License-Identifier: GPL-3.0-or-later
import GObjectSupport
import Glibc
import PhotoLibrary
import Thumbnails

/// Exit statuses: 0 done, 1 failed (or, for the window, cancelled), 2 bad usage.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
}

struct UsageError: Error { let message: String }

/// The library roots: `--library DIR`… when given (each must be a readable folder), else the
/// XDG Pictures and Videos folders and the folders added from the picker, those that exist.
/// `checkingRemote` false leaves a location's check to the caller (`checkRemoteRoot`), which
/// mounts it: the window does it while GTK starts.
func resolveRoots(_ given: [[UInt8]], checkingRemote: Bool = true) throws(UsageError) -> [FilePath] {
    if given.isEmpty {
        let existing = LibraryFolders.present
        guard !existing.isEmpty else {
            let names = XDGDirectories.mediaFolders.map(\.displayString).joined(separator: ", ")
            throw UsageError(message: i18n("no library folder: {folders} does not exist (use --library DIR)", ["folders": names]))
        }
        return existing
    }
    return try given.map { bytes throws(UsageError) in
        var path = FilePath(bytes: bytes)
        if path.isLocationURI {
            if checkingRemote { try checkRemoteRoot(path) }
            return path
        }
        if let local = RemoteFiles.localPath(ofFileURI: path) { path = local }
        var info = stat()
        if path.withCString({ stat($0, &info) }) != 0 {
            throw UsageError(message: "--library \(path): \(errorDescription(errno))")
        }
        if info.st_mode & S_IFMT != S_IFDIR {
            throw UsageError(message: "--library \(path): \(errorDescription(ENOTDIR))")
        }
        return path.absolute()
    }
}

/// The library of the folders `--library` names, or without it the default folders' (one index
/// whichever of them are there: a disk not plugged in keeps its photos, offline).
func namedLibrary(_ given: [[UInt8]]) throws -> PhotoLibrary {
    let roots = try resolveRoots(given)
    return given.isEmpty ? try PhotoLibrary(defaultFoldersAt: .standard) : try PhotoLibrary(roots: roots)
}

/// Checks that a location given with `--library` is a folder. It is mounted here if gvfs has not
/// yet, without a prompt (a server that wants a password says so in one line); a server that does
/// not answer is not an error here: the scan says so, and the index answers meanwhile.
func checkRemoteRoot(_ path: FilePath) throws(UsageError) {
    do {
        try RemoteFiles.checkFolder(path)
    } catch where [.unreachable, .notMounted, .staleMount].contains(error.kind) {
        // (Said by the scan: answered from the index when it holds the folder already.)
    } catch {
        throw UsageError(message: "--library \(path): \(error)")
    }
}

/// Opens the index and, unless `cached` (and the index has been built before), brings it up to
/// date first: only folders whose entries changed are listed again, so an unchanged library costs
/// one `stat` per folder (a file rewritten in place is seen by `photopick index`).
func openLibrary(named given: [[UInt8]], cached: Bool, showProgress: Bool) throws -> PhotoLibrary {
    let library = try namedLibrary(given)
    for notice in library.notices { warn(notice.message) }
    // (A frozen index was said to be read as it was: nothing can be written to bring it up to date.)
    if cached && !library.isEmpty || library.isFrozen { return library }
    do {
        try scan(library, .changedFolders, progressLines: showProgress, whenBusy: .giveUp)
    } catch let error where isBusy(error) {
        // Another Photopick is scanning the index (the app, a long `index`): its committed state
        // is still right to read (WAL), if not the newest. Waiting could take minutes.
        warn(i18n("another Photopick is updating the index; answering from the index as it is"))
    }
    return library
}

/// Whether another process scans the index (or held SQLite's write lock longer than we waited).
private func isBusy(_ error: any Error) -> Bool {
    if case ScanError.busy = error { return true }
    if case ScanError.database(let database) = error { return database.isBusy }
    return (error as? DatabaseError)?.isBusy == true
}

/// Scans with a progress bar on a terminal; `progressLines` also prints plain lines when
/// standard error is not a terminal (`photopick index`). While another Photopick scans the same
/// index, it waits for it and says so (or gives up, `whenBusy: .giveUp`).
@discardableResult
func scan(_ library: PhotoLibrary, _ scope: ScanScope = .everyFile, progressLines: Bool,
          whenBusy: WhenIndexBusy = .wait) throws -> ScanProgress {
    let firstScan = library.isEmpty
    let display: ProgressDisplay?
    if standardErrorIsTerminal || progressLines {
        display = ProgressDisplay(expectedFiles: firstScan ? library.countFiles() : library.knownFileCount)
    } else {
        display = nil
    }
    var last = ScanProgress()
    let started = monotonicSeconds()
    try library.scan(scope, progress: { progress in
        last = progress
        // A quick rescan should not flash a bar: draw only once it takes a moment.
        if progressLines || monotonicSeconds() - started > 0.4 { display?.update(progress) }
    }, whenBusy: whenBusy, waiting: {
        warn(i18n("another Photopick is updating the index; waiting for it to finish"))
    })
    display?.finish()
    for (root, reason) in library.unreachableRoots.sorted(by: { $0.key < $1.key }) {
        // Never indexed: nothing to answer from. Indexed before: answered as the index last saw it.
        if library.isEmpty { throw Unreachable(message: "\(root): \(i18n("cannot be reached")) (\(reason))") }
        if !root.isLocationURI {
            warn(i18n("{folder} is not there (on a disk that is not connected?); its photos are listed as they were when it was last read",
                      ["folder": root.displayString]))
            continue
        }
        warn(i18n("{folder}: cannot be reached ({reason}); its photos are listed as they were when it last answered",
                  ["folder": root.displayString, "reason": reason]))
    }
    return last
}

/// A remote library folder that never answered.
struct Unreachable: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}


let libraryOption = OptionParser.Option("library", .filenames, N_("A folder of photos and videos (repeatable; default: the Pictures and Videos folders)"), argument: "DIR")
let cachedOption = OptionParser.Option("cached", .flag, N_("Use the index as it is, without looking for changes first"))

// MARK: photopick albums

func albumsCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = albumsOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage(unexpectedArgument(rest[0])) }
    let library = try openLibrary(named: parser.filenames("library"), cached: parser.flag("cached"), showProgress: false)
    var output = StandardOutput()
    let albums = try library.albums()
    if parser.flag("json") {
        output.write("[")
        for (index, album) in albums.enumerated() {
            var object = JSONObject()
            object.add("name", album.name)
            object.add("count", album.count)
            switch album.album {
            case .smart(let smart): object.add("type", "smart"); object.add("id", smart.name)
            case .recentlyPicked: object.add("type", "smart"); object.add("id", Album.recentlyPickedName)
            case .folder(let id): object.add("type", "folder"); object.add("id", "folder:\(id)")
            case .tree(let id): object.add("type", "tree"); object.add("id", "tree:\(id)")
            }
            if let path = album.folderPath {
                object.add("path", path.displayString)
                if path.exactString == nil { object.add("path_base64", base64(path.bytes)) }
            }
            if let groups = album.burstGroups { object.add("burst_groups", groups) }
            output.write((index > 0 ? ",\n " : "") + object.text)
        }
        output.write("]\n")
    } else {
        let width = albums.map { groupedDigits($0.count).count }.max() ?? 1
        for album in albums {
            let count = groupedDigits(album.count)
            // One line per album, whatever the folder's name holds.
            output.write(String(repeating: " ", count: width - count.count) + count + "  ")
            output.write(escapedForLine(Array(album.name.utf8)) + [UInt8(ascii: "\n")])
        }
    }
    output.flush()
    return ExitStatus.success
}

// MARK: photopick ls

func listCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = listOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage(unexpectedArgument(rest[0])) }
    if parser.flag("json") && parser.flag("null") { return usage(i18n("--json and -0 cannot be used together")) }
    let limit = parser.integer("limit")
    if let limit, limit < 0 { return usage(i18n("--limit must be 0 or more")) }
    let library = try openLibrary(named: parser.filenames("library"), cached: parser.flag("cached"), showProgress: false)
    var output = StandardOutput()
    let terminator: [UInt8] = parser.flag("null") ? [0] : [UInt8(ascii: "\n")]

    if parser.flag("errors") {
        let problems = try (library.problems() + thumbnailProblems(library)).prefix(limit ?? .max)
        if parser.flag("json") {
            output.write("[")
            for (index, problem) in problems.enumerated() {
                var object = JSONObject()
                object.add("path", problem.path.displayString)
                if problem.path.exactString == nil { object.add("path_base64", base64(problem.path.bytes)) }
                object.add("folder", problem.isFolder)
                object.add("reason", problem.reason)
                output.write((index > 0 ? ",\n " : "") + object.text)
            }
            output.write("]\n")
        } else {
            // A line each: a name's newline or escape bytes are written escaped. With -0 the
            // path is exact (the reason follows ": " and the NUL ends the record).
            let exact = parser.flag("null")
            for problem in problems {
                output.write(exact ? problem.path.bytes : escapedForLine(problem.path.bytes))
                output.write((problem.isFolder ? "/: " : ": ") + problem.reason)
                output.write(terminator)
            }
        }
        output.flush()
        return ExitStatus.success
    }

    let albumName = parser.string("album") ?? "Recents"
    guard let album = try library.album(named: albumName) else {
        return usage(noAlbum(albumName))
    }
    let fetchResult = try library.fetchAssets(in: album)
    let count = min(fetchResult.count, limit ?? .max)
    let json = parser.flag("json")
    if json { output.write("[") }
    var position = 0
    // Rows are read a page at a time: one query per page, not one per asset.
    var written = 0
    while position < count {
        let page = fetchResult.ids(in: position..<min(count, position + 256))
        if page.isEmpty { break }
        position += page.count
        // Assets deleted since the album was opened are left out.
        for asset in try library.assets(ids: page) {
            if json {
                output.write((written > 0 ? ",\n " : "") + describe(asset, library: library))
            } else {
                output.write(asset.path.bytes)
                output.write(terminator)
            }
            written += 1
        }
    }
    if json { output.write("]\n") }
    output.flush()
    return ExitStatus.success
}

/// One asset as a JSON object: what a script needs to choose files without opening them.
/// `path`: where the file is now, when not at the asset's own path (a `--copy-to` copy).
/// A file the library does not describe: its path.
func describePath(_ path: FilePath) -> String {
    var object = JSONObject()
    object.add("path", path.displayString)
    if path.exactString == nil { object.add("path_base64", base64(path.bytes)) }
    return object.text
}

func describe(_ asset: Asset, library: PhotoLibrary, at path: FilePath? = nil) -> String {
    let path = path ?? asset.path
    var object = JSONObject()
    object.add("id", asset.id)
    object.add("path", path.displayString)
    if path.exactString == nil { object.add("path_base64", base64(path.bytes)) }
    object.add("kind", asset.kind.name)
    object.add("mime_type", asset.mimeType)
    object.add("width", asset.width)
    object.add("height", asset.height)
    object.add("orientation", asset.orientation)
    object.add("captured_at", asset.captureDate.iso8601)
    // "file-changed": the file's time was ahead of the clock, so the time its status changed.
    object.add("date_source", asset.captureDate.source == .embedded ? "metadata" : asset.captureDate.source == .fileChangeTime ? "file-changed" : "file")
    object.add("duration", asset.duration)
    object.add("favorite", asset.isFavorite)
    object.add("rating", asset.rating)
    object.add("camera", cameraName(make: asset.make, model: asset.model))
    object.add("albums", strings: asset.albums.albums.map(\.name))
    if asset.isLivePhoto, let paired = asset.pairedID, let video = try? library.asset(id: paired) {
        object.add("live_photo_video", video.path.displayString)
    }
    if let burst = asset.burstKey { object.add("burst", burst) }
    return object.text
}

/// "Canon EOS 80D" rather than "Canon Canon EOS 80D": many models already start with the make.
func cameraName(make: String?, model: String?) -> String? {
    guard let model else { return make }
    guard let make, !model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first.map(String.init) ?? make.lowercased()) else { return model }
    return make + " " + model
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

// MARK: photopick index

func indexCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = indexOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage(unexpectedArgument(rest[0])) }
    let library = try namedLibrary(parser.filenames("library"))
    for notice in library.notices { warn(notice.message) }
    let progress = try scan(library, progressLines: true)
    // A full index run also reads every page of the index: damage found is rebuilt (see run()).
    if let damage = try library.damageFound() { throw IndexDamage(reason: damage) }
    let problems = try library.problems().count
    var output = StandardOutput()
    // (A first run over SFTP knows its first screen before it has read every file.)
    let dated = progress.filesLeftBehindFirstScreen > 0
        ? i18n("; first screen known after {seconds} s", ["seconds": String(format1: progress.datedSeconds)])
        : progress.filesToComplete > 0 ? i18n("; every file dated after {seconds} s", ["seconds": String(format1: progress.datedSeconds)]) : ""
    output.write(i18n("Indexed {files} files in {seconds} s ({rate} files/s): {read} read, {unchanged} unchanged, {problems} with problems",
                      ["files": Localization.number(progress.filesSeen), "seconds": String(format1: progress.elapsedSeconds),
                       "rate": Localization.number(Int(progress.filesPerSecond)), "read": Localization.number(progress.filesRead),
                       "unchanged": Localization.number(progress.filesUnchanged), "problems": Localization.number(problems)])
                 + (problems > 0 ? " (photopick ls --errors)" : "") + dated + "\n")
    output.flush()
    return ExitStatus.success
}

extension String {
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}

// MARK: Helpers

/// Parses options; on a bad option prints GLib's message as one line and returns nil.
func parseOrReport(_ parser: OptionParser, _ arguments: [[UInt8]]) throws -> [[UInt8]]? {
    switch parser.parse(arguments) {
    case .success(let rest): return rest
    case .failure(let error):
        warn(i18n("{problem} (photopick --help lists the options)", ["problem": error.message]))
        return nil
    }
}

func usage(_ message: String) -> Int32 {
    warn(message)
    return ExitStatus.usage
}

/// "unexpected argument “x”", for an argument a command does not take.
func unexpectedArgument(_ argument: [UInt8]) -> String {
    i18n("unexpected argument “{argument}”", ["argument": String(decoding: argument, as: UTF8.self)])
}

/// "no album named “x” (photopick albums lists them)".
func noAlbum(_ name: String) -> String {
    i18n("no album named “{album}” (photopick albums lists them)", ["album": name])
}

/// `photopick albums`'s options (also read by the man page).
func albumsOptions() -> OptionParser {
    OptionParser(parameters: N_("- list albums and their counts"), summary: N_("Lists the albums: smart albums first, then folders that hold photos or videos."), options: [
        libraryOption,
        OptionParser.Option("json", .flag, N_("Print a JSON array")),
        cachedOption,
    ])
}

/// `photopick ls`'s options (also read by the man page).
func listOptions() -> OptionParser {
    OptionParser(parameters: N_("- list photos and videos"), summary: N_("Prints the assets of an album in display order (newest first), one path a line."), options: [
        libraryOption,
        OptionParser.Option("album", short: "a", .string, N_("The album to list (default: Recents); see photopick albums"), argument: "NAME"),
        OptionParser.Option("limit", short: "n", .integer, N_("Print at most N assets"), argument: "N"),
        OptionParser.Option("json", .flag, N_("Print a JSON array with each asset's metadata")),
        OptionParser.Option("null", short: "0", .flag, N_("End each path with a NUL byte instead of a newline")),
        OptionParser.Option("errors", .flag, N_("List the files and folders that could not be read, with the reason")),
        cachedOption,
    ])
}

/// `photopick index`'s options (also read by the man page).
func indexOptions() -> OptionParser {
    OptionParser(parameters: N_("- index the library now"), summary: N_("Indexes the library folders now, with progress, and exits."), options: [libraryOption])
}

/// The library's files whose thumbnail could not be made, with the recorded reason ("cannot
/// decode: the PNG decoder crashed on this file (Segmentation fault)"): the window shows them as
/// damaged cells, and they are not tried again until they change.
private func thumbnailProblems(_ library: PhotoLibrary) throws -> [IndexProblem] {
    let cache = ThumbnailCache()
    return try library.assets(ids: library.fetchAssets(in: .smart(.recents)).allIDs).compactMap { asset in
        var info = stat()
        guard asset.path.withCString({ stat($0, &info) }) == 0,
              let original = try? ThumbnailCache.Original(path: asset.path, modificationTime: Int64(info.st_mtim.tv_sec), size: Int64(info.st_size),
                                                          mimeType: nil),
              let reason = cache.failureReason(for: original) else { return nil }
        return IndexProblem(path: asset.path, reason: "no thumbnail: " + reason, isFolder: false)
    }
}
