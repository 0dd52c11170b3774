// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGtk
import GObjectSupport
import Glibc
import PhotoLibrary
import Thumbnails

/// The photos of the last first screen a picker's window showed, for the next start to read
/// their thumbnails while GTK starts (issue 42).
///
/// Why: a warm start's first frame waits for its thumbnails, read from the disk cache once the
/// album is open (5-10 ms, up to its 0.1 s limit on a busy machine, after which the frame came
/// with grey cells and the screen settled 0.2 s later). GTK's own start (display, application,
/// libadwaita) takes 0.1 s on the GTK thread, with a core to spare: the photos the window
/// showed last time are read then, on the loader's threads, into the memory cache the cells
/// bind from.
///
/// Nothing here is trusted: each photo is looked up as a cell would (its file's size and time,
/// then the thumbnail's own record of them), so a photo changed or gone since only costs its
/// look-up, and a first screen that changed is filled as before, by the album's own preload.
/// One file a set of folders, in $XDG_CACHE_HOME/photopick/first-screen/.
enum FirstScreenHint {
    private static let signature = "photopick first screen 1"
    /// More than any first screen holds (a 4K screen of the smallest cells has about 300).
    private static let limit = 400

    static func file(for folders: [String]) -> FilePath {
        // FNV-1a of the folders as given: a name a file can have, the same at every start.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in folders.joined(separator: "\n").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return XDGDirectories.cacheHome.appending("photopick").appending("first-screen")
            .appending(String(hash, radix: 16))
    }

    /// What the window showed: `paths` at `flavor`. Written only when it differs from what the
    /// file holds (a read of a few kB), replaced at once without waiting for the disk (it is a
    /// cache: a file lost in a crash only costs the next start its head start).
    static func save(folders: [String], flavor: ThumbnailFlavor, paths: [FilePath]) {
        // Local photos only (a remote one's look-up is a round trip to its server), named in
        // UTF-8 (a line of text), without a line break in the name.
        let kept = paths.prefix(limit).compactMap(\.exactString).filter { $0.hasPrefix("/") && !$0.contains("\n") }
        guard !kept.isEmpty else { return }
        let text = ([signature, folders.joined(separator: "\u{1}"), flavor.directoryName] + kept).joined(separator: "\n") + "\n"
        let file = file(for: folders)
        if read(file) == text { return }
        let folder = file.parent
        guard XDGDirectories.refusalToMake(folder) == nil, g_mkdir_with_parents(folder.displayString, 0o700) == 0 else { return }
        _ = text.withCString { g_file_set_contents_full(file.displayString, $0, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0o600, nil) }
    }

    /// The photos and flavour saved for these folders, if any.
    static func load(folders: [String]) -> (flavor: ThumbnailFlavor, paths: [FilePath])? {
        guard let text = read(file(for: folders)) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count > 3, lines[0] == signature, lines[1] == folders.joined(separator: "\u{1}"),
              let flavor = ThumbnailFlavor(name: lines[2]) else { return nil }
        let paths = lines.dropFirst(3).prefix(limit).filter { $0.hasPrefix("/") }.map { FilePath($0) }
        return paths.isEmpty ? nil : (flavor, paths)
    }

    private static func read(_ file: FilePath) -> String? {
        var contents: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        guard g_file_get_contents(file.displayString, &contents, &length, nil) != 0, let contents else { return nil }
        defer { g_free(contents) }
        // (At most a screen's paths: a file grown past that is not ours.)
        guard length < 1 << 20 else { return nil }
        return String(cString: contents)
    }
}

extension Picker {
    /// Whether first screens are kept: in the photopick program, which reads them (a host's
    /// pickers write nothing of the kind).
    private static var keepsFirstScreens = false

    /// Keeps the open album's first screen for the next start of the program.
    func saveFirstScreenHint() {
        guard Self.keepsFirstScreens, let size = firstScreenHintSize, let grid = photoGrid else { return }
        FirstScreenHint.save(folders: strings(shell.get_library_folders(picker)), flavor: grid.flavor,
                             paths: grid.firstScreenAssets(width: size.width, height: size.height).map(\.path))
    }

    /// Asks the shared loader for the thumbnails of the last first screen of `folders`: the
    /// album's own preload and the cells then join these requests, or find them in memory.
    static func readLastFirstScreen(folders: [String]) {
        keepsFirstScreens = true
        guard let (flavor, paths) = FirstScreenHint.load(folders: folders) else { return }
        StartupTrace.mark("reading the last first screen's \(paths.count) thumbnails")
        // (Nobody waits for these answers: they go to the memory cache. A photo whose thumbnail
        // is no longer in the disk cache is made, as its cell would ask it to be.)
        for path in paths { loader.request(path, flavor: flavor) { _ in } }
        loader.putFirst(paths, flavor: flavor)
    }
}
