// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import GObjectSupport
import Glibc
import PhotoLibrary
import PhotopickApp

/// What a `photopick` window invocation asks for: zenity's `--file-selection` options with
/// zenity's meaning, and Photopick's own. Parsed and checked before anything opens, so that bad
/// input costs one line on standard error and never a window.
struct PickRequest {
    /// `--file-selection` (a line of a script written for zenity): one pick unless `--multiple`,
    /// paths on one line joined by `|`, and zenity's exit codes (255 for an error).
    var zenityMode = false
    var roots: [FilePath] = []
    /// Whether `--library` named the folders (then a folder chosen in the window is not kept).
    var namedFolders = false
    /// The library is the default folders' (`PhotoLibrary(defaultFoldersAt:)`): no `--library`,
    /// and no folder outside them to open.
    var ofDefaultFolders = false
    /// Locations given with `--library`, not checked yet (`checkRemoteRoot`).
    var remoteRootsToCheck: [FilePath] = []
    var options = PickerWindow.Options()
    var albumName: String?
    /// `--date`: the end of the day, month or year given, in milliseconds of a camera's clock
    /// (as the index keeps a date without a zone).
    var dateEnd: Int64?
    /// `--filename`: a folder to open, or a file to open its folder at.
    var filename: FilePath?
    /// `--filename` as given, for GTK's chooser.
    var givenFilename: FilePath?
    /// GTK's own chooser answers instead of the picker: zenity's `--save` and `--directory`,
    /// and filters that admit no photo or video.
    var chooser: FileChooser.Mode?

    /// The chooser's question, in zenity's words.
    var chooserRequest: FileChooser.Request? {
        chooser.map { mode in
            var request = FileChooser.Request(mode: mode, title: givenTitle, filename: givenFilename, filters: options.fileFilters,
                                              acceptLabel: okLabel, cancelLabel: cancelLabel, timeout: options.timeout)
            request.saysNotices = saysNotices
            return request
        }
    }
    /// `--title` as given (GTK's chooser is otherwise titled by what it asks).
    private var givenTitle: String?
    private var okLabel: String?
    private var cancelLabel: String?
    /// zenity's `--display`: the X display to open instead of the environment's.
    var display: String?
    var output = PickOutput.Format.terminated(by: [UInt8(ascii: "\n")], uri: false)
    var copyDestination: FilePath?

    /// The exit codes of each mode. Zenity's: 0 confirmed, 1 cancelled, 5 timeout, 255 error.
    /// Photopick's own mode keeps 2 for every error: never 1, which is a cancel.
    struct ExitCodes {
        let confirmed: Int32 = 0, cancelled: Int32 = 1, timedOut: Int32 = 5
        let error: Int32
    }

    var exitCodes: ExitCodes { ExitCodes(error: zenityMode ? 255 : ExitStatus.usage) }

    static func exitCodes(for arguments: [[UInt8]]) -> ExitCodes {
        ExitCodes(error: arguments.contains(Array("--file-selection".utf8)) ? 255 : ExitStatus.usage)
    }

    /// The window's options, for `photopick --help` and the man page as well as for parsing.
    static func parser() -> OptionParser {
        // One literal (xgettext reads Swift as C, which knows no multi-line literals).
        let parser = OptionParser(parameters: N_("- pick photos and videos"), summary: N_("Opens the picker. The picked files are printed in the order they were picked: one path a line, or, with --file-selection (zenity's), one line joined by the separator.\nExit status: 0 picked, 1 cancelled or closed, 5 timed out; an error is 2 (255 with --file-selection)."), options: [
            libraryOption,
            OptionParser.Option("album", short: "a", .string, N_("Open this album (default: Recents); see photopick albums"), argument: "NAME"),
            OptionParser.Option("date", .string, N_("Open the album at this date: its newest photo taken on or before it"), argument: "YYYY[-MM[-DD]]"),
            OptionParser.Option("max", .integer, N_("Allow at most N picks"), argument: "N"),
            OptionParser.Option("mime-type", .strings, N_("Offer only files of this MIME type (image/png, video/*; repeatable)"), argument: "PATTERN"),
            OptionParser.Option("no-camera", .flag, N_("Do not show the camera as the first cell")),
            cameraOption,
            OptionParser.Option("null", short: "0", .flag, N_("End each path with a NUL byte instead of a newline or separator")),
            OptionParser.Option("json", .flag, N_("Print the picked files' metadata as a JSON array (the fields of ls --json)")),
            OptionParser.Option("uri", .flag, N_("Print file:// URIs instead of paths")),
            OptionParser.Option("copy-to", .filenames, N_("Copy the picked files into DIR (never replacing a file) and print the copies' paths"), argument: "DIR"),
            OptionParser.Option("desktop", .flag, N_("The app from the menu: reopen the album of last time; picks are copied to the clipboard, opened or copied to a folder")),
            OptionParser.Option("version", .flag, N_("Print the version and exit")),
            OptionParser.Option("gapplication-service", .flag, N_("With --desktop: started by D-Bus activation, open the window when the desktop asks")),
            // zenity --file-selection, with zenity's meaning.
            OptionParser.Option("file-selection", .flag, N_("Behave as zenity --file-selection: one pick unless --multiple, “|” between paths, zenity's exit codes")),
            OptionParser.Option("multiple", .flag, N_("Allow several picks (with --file-selection)")),
            OptionParser.Option("separator", .string, N_("Put SEPARATOR between the paths, on one line (default with --file-selection: “|”)"), argument: "SEPARATOR"),
            OptionParser.Option("filename", .filenames, N_("Open this folder's album, or the folder of this file with the file focused"), argument: "PATH"),
            OptionParser.Option("file-filter", .strings, N_("A filter in the header: “NAME | PATTERN PATTERN…” (repeatable; the first is applied)"), argument: "FILTER"),
            OptionParser.Option("title", .string, N_("The window's title"), argument: "TITLE"),
            OptionParser.Option("ok-label", .string, N_("The confirm button's words (default: Add)"), argument: "TEXT"),
            OptionParser.Option("cancel-label", .string, N_("The cancel button's words (default: Cancel)"), argument: "TEXT"),
            OptionParser.Option("width", .integer, N_("The window's width"), argument: "WIDTH"),
            OptionParser.Option("height", .integer, N_("The window's height"), argument: "HEIGHT"),
            OptionParser.Option("timeout", .integer, N_("Close after SECONDS (exit status 5)"), argument: "SECONDS"),
            OptionParser.Option("modal", .flag, N_("Modal over the window of --attach")),
            OptionParser.Option("attach", .string, N_("Stay above this X11 window (its id, decimal or 0x hex)"), argument: "XID"),
            // zenity's save and folder modes, and filters of no photo type, go to GTK's chooser.
            OptionParser.Option("save", .flag, N_("Ask for a file to save, in GTK's file chooser (as zenity does)")),
            OptionParser.Option("directory", .flag, N_("Ask for a folder, in GTK's file chooser (as zenity does)")),
            OptionParser.Option("confirm-overwrite", .flag, N_("With --save, ask before replacing a file (GTK's chooser always asks)")),
            OptionParser.Option("window-icon", .filenames, N_("The window's icon: an image file, an icon name, or zenity's info, warning, question or error"), argument: "ICONPATH"),
            OptionParser.Option("display", .string, N_("The X display to open (as zenity's --display)"), argument: "DISPLAY"),
            OptionParser.Option("verbose", .flag, N_("Say on standard error what was worked around (a --filename that is not there, an icon that cannot be shown)")),
        ] + zenityIgnoredOptions)
        return parser
    }

    /// What zenity 3.44 takes with `--file-selection` and does nothing with (its GTK 3 options,
    /// `--extra-button`, which its chooser cannot show, and other dialogs' options it does not
    /// check): a script that passes them works, as it does with zenity. (Those zenity refuses
    /// for a file selection, `--checklist` or `--day`, are refused here too.)
    private static var zenityIgnoredOptions: [OptionParser.Option] {
        let strings = ["extra-button", "class", "name", "gtk-module", "text", "icon-name", "checkbox", "hint", "url",
                       "add-calendar", "add-combo", "add-entry", "add-list", "add-password"]
        let flags = ["g-fatal-warnings", "no-markup", "auto-scroll", "default-cancel", "hide-value", "no-interaction", "print-partial"]
        let integers = ["value", "min-value", "max-value", "step"]
        return strings.map { OptionParser.Option($0, .strings, "", hidden: true) }
            + flags.map { OptionParser.Option($0, .flag, "", hidden: true) }
            + integers.map { OptionParser.Option($0, .integer, "", hidden: true) }
    }

    /// Reads the options. Throws a UsageError with the one line to print.
    init(parser: OptionParser, rest: [[UInt8]]) throws(UsageError) {
        zenityMode = parser.flag("file-selection")
        if let stray = rest.first {
            // zenity ignores words that are not options (mpv's open-dialog script passes the
            // playing file's name after --filename's folder, a value of two words).
            guard zenityMode else {
                throw UsageError(message: i18n("{problem} (photopick --help lists the options)", ["problem": unexpectedArgument(stray)]))
            }
            notice("ignoring “\(String(decoding: escapedForLine(stray), as: UTF8.self))”, as zenity does: not an option")
        }
        // zenity's save and folder modes are GTK's chooser's, as in zenity (it confirms before
        // replacing a file, --confirm-overwrite or not).
        if parser.flag("save") { chooser = .save } else if parser.flag("directory") { chooser = .folder }

        // How many: zenity picks one unless --multiple; --max N allows N (and so implies several).
        if let maximum = parser.integer("max") {
            guard maximum >= 1 else { throw UsageError(message: i18n("--max must be 1 or more")) }
            options.maximum = maximum
        } else if zenityMode && !parser.flag("multiple") {
            options.maximum = 1
        }

        output = try PickRequest.outputFormat(parser, zenityMode: zenityMode)
        // (--uri answers a remote pick with its URI: nothing to copy.)
        options.fetchesRemotePicks = !output.givesURIs
        if let destination = parser.filenames("copy-to").last {
            copyDestination = try PickRequest.writableFolder(FilePath(bytes: destination), option: "--copy-to")
        }

        options.mimeTypes = parser.strings("mime-type")
        for pattern in options.mimeTypes where !PickRequest.isMIMEPattern(pattern) {
            throw UsageError(message: i18n("--mime-type “{pattern}”: not a MIME type or pattern (image/png, image/*)", ["pattern": pattern]))
        }
        options.fileFilters = try parser.strings("file-filter").map(PickRequest.fileFilter)
        if chooser == nil, !zenityMode, !options.fileFilters.isEmpty, options.mimeTypes.isEmpty,
           !options.fileFilters.contains(where: FileChooser.admitsMedia) {
            // Photopick's own line with filters that admit no photo or video (`*.pdf`).
            chooser = .open(multiple: parser.flag("multiple"))
        }

        if let title = parser.string("title") { options.title = title; givenTitle = title }
        if let label = parser.string("ok-label") { options.confirmLabel = label; okLabel = label }
        if let label = parser.string("cancel-label") { options.cancelLabel = label; cancelLabel = label }
        for (name, value) in [("width", parser.integer("width")), ("height", parser.integer("height"))] {
            guard let value else { continue }
            guard (1...16384).contains(value) else { throw UsageError(message: i18n("--{option} must be between 1 and 16384", ["option": name])) }
        }
        options.width = parser.integer("width")
        options.height = parser.integer("height")
        if let timeout = parser.integer("timeout") {
            // (0 is zenity's "no timeout".)
            guard timeout >= 0 else { throw UsageError(message: i18n("--timeout must be 0 (none) or more seconds")) }
            options.timeout = timeout == 0 ? nil : timeout
        }
        saysNotices = parser.flag("verbose")
        if let given = parser.filenames("window-icon").last {
            let icon = PickerWindow.WindowIcon(FilePath(bytes: given))
            if icon.isUsable { options.icon = icon } else {
                notice(i18n("--window-icon {path}: no such file, or larger than 1 MB; the window keeps its icon",
                            ["path": String(decoding: escapedForLine(given), as: UTF8.self)]))
            }
        }
        display = parser.string("display")
        options.modal = parser.flag("modal")
        options.version = photopickVersion
        options.enterConfirms = zenityMode
        if let text = parser.string("attach") {
            var end: UnsafeMutablePointer<CChar>?
            let value = strtoul(text, &end, 0)
            guard !text.isEmpty, end?.pointee == 0, value > 0 else {
                throw UsageError(message: i18n("--attach “{window}”: not a window id (a number, decimal or 0x hex)", ["window": text]))
            }
            options.parentXID = UInt(value)
        }

        options.showsCamera = !parser.flag("no-camera")
        options.cameraDevice = parser.string("camera")
        options.restoresAlbum = parser.flag("desktop")
        options.isDesktopApp = parser.flag("desktop")
        // The app from the menu is named by its name, as every app is; a script's picker by
        // what it is for ("Pick Photos", or its --title).
        if options.isDesktopApp && parser.string("title") == nil { options.title = "Photopick" }
        options.isDBusService = parser.flag("gapplication-service")
        if options.isDBusService && !options.isDesktopApp {
            throw UsageError(message: i18n("--gapplication-service is for the app from the menu: use it with --desktop"))
        }
        albumName = parser.string("album")
        if let text = parser.string("date") {
            guard let end = CaptureDate.endOfPeriod(text) else {
                throw UsageError(message: i18n("--date={date} is not a date: write YYYY, YYYY-MM or YYYY-MM-DD", ["date": text]))
            }
            dateEnd = end
        }

        let given = parser.filenames("library")
        if chooser == nil, zenityMode {
            // A line written for zenity may ask for any file: GTK's chooser unless it is photos.
            let route = ZenityRoute.decide(ZenityRoute.Evidence(
                filters: options.fileFilters, mimeTypes: options.mimeTypes,
                ownOption: PickRequest.photopicksOwn.first { parser.given($0) }.map { "--" + $0 },
                title: givenTitle, filename: PickRequest.givenFilename(parser),
                libraryFolders: LibraryFolders.present, invokedAs: PickRequest.invokedAs,
                callerScript: ZenityRoute.callerScript()))
            // (For whoever wonders why: a line for the developer, in English.)
            notice("\(route.answerer == .picker ? "the picker" : "GTK's file chooser") answers: \(route.reason)")
            if route.answerer == .chooser { chooser = .open(multiple: parser.flag("multiple")) }
        }
        namedFolders = !given.isEmpty
        // Without --library, a missing Pictures folder is the window's empty state, not an error.
        roots = given.isEmpty && LibraryFolders.present.isEmpty
            ? [XDGDirectories.mediaFolders[0]] : try resolveRoots(given, checkingRemote: false)
        // (Checked by the window while GTK starts: a mount takes 0.5 s over SFTP on loopback.)
        remoteRootsToCheck = given.isEmpty ? [] : roots.filter(\.isLocationURI)
        if let path = PickRequest.givenFilename(parser) {
            givenFilename = path
            // (GTK's chooser takes the name itself: a file to save need not exist.)
            if chooser == nil { filename = PickRequest.opening(path, roots: roots) }
        }
        // A folder outside the library (zenity opens any folder) joins it for this window.
        if let folder = startFolder, !roots.contains(where: { folder.relative(to: $0) != nil }) {
            roots.append(folder)
        } else if given.isEmpty {
            ofDefaultFolders = true
        }
        options.ofDefaultFolders = ofDefaultFolders
        options.focusedPath = filename.flatMap { $0.isDirectory ? nil : $0 }
    }

    /// `--filename` as an absolute path: nil when empty (`--filename=`, which zenity ignores), a
    /// leading `~/` the home folder (a script that quoted it before the shell could expand it).
    static func givenFilename(_ parser: OptionParser) -> FilePath? {
        guard var bytes = parser.filenames("filename").last, !bytes.isEmpty else { return nil }
        if bytes == Array("~".utf8) || bytes.starts(with: Array("~/".utf8)) {
            bytes = XDGDirectories.home.bytes + bytes.dropFirst()
        }
        return FilePath(bytes: bytes).absolute()
    }

    /// C escapes read as g_strcompress reads them (`\n`, `\t`, `\\`, octal).
    static func compressed(_ text: String) -> String {
        guard text.contains("\\"), let result = g_strcompress(text) else { return text }
        defer { g_free(result) }
        return String(cString: result)
    }

    /// Options zenity does not have: a line with one was written for Photopick.
    static let photopicksOwn = ["library", "album", "date", "max", "mime-type", "no-camera", "camera", "null", "json", "uri",
                                "copy-to", "desktop", "gapplication-service"]

    /// The name the process was started by (its first argument's last part).
    static var invokedAs: String {
        String(CommandLine.arguments.first?.split(separator: "/").last ?? "photopick")
    }

    /// The folder `--filename` opens: itself, or the folder of the file it names.
    var startFolder: FilePath? {
        filename.map { $0.isDirectory ? $0 : $0.parent }
    }

    private static func outputFormat(_ parser: OptionParser, zenityMode: Bool) throws(UsageError) -> PickOutput.Format {
        let chosen = [("--null", parser.flag("null")), ("--json", parser.flag("json")), ("--separator", parser.string("separator") != nil)]
            .filter(\.1).map(\.0)
        if chosen.count > 1 { throw UsageError(message: i18n("{options} cannot be used together", ["options": chosen.joined(separator: i18n(" and "))])) }
        let uri = parser.flag("uri")
        if parser.flag("json") {
            if uri { throw UsageError(message: i18n("--json and --uri cannot be used together (the JSON has each path)")) }
            return .json
        }
        if parser.flag("null") { return .terminated(by: [0], uri: uri) }
        if let given = parser.string("separator") {
            // zenity reads C escapes in it (`--separator='\n'`, as scripts pass it).
            let separator = PickRequest.compressed(given)
            guard !separator.isEmpty else { throw UsageError(message: i18n("--separator must not be empty (a path may hold any other character)")) }
            return .joined(by: Array(separator.utf8), uri: uri)
        }
        return zenityMode ? .joined(by: Array("|".utf8), uri: uri) : .terminated(by: [UInt8(ascii: "\n")], uri: uri)
    }

    /// zenity's filter syntax: "NAME | PATTERN PATTERN…", or only patterns (then they name it).
    static func fileFilter(_ text: String) throws(UsageError) -> PickerWindow.FileFilter {
        let name: String, patternText: Substring
        if let bar = text.firstIndex(of: "|") {
            name = text[..<bar].trimmingSpaces
            patternText = text[text.index(after: bar)...]
        } else {
            name = text.trimmingSpaces
            patternText = Substring(text)
        }
        let patterns = patternText.split(separator: " ").map(String.init)
        guard !name.isEmpty, !patterns.isEmpty else {
            throw UsageError(message: i18n("--file-filter “{filter}”: expected “NAME | PATTERN…”, for example “Photos | *.jpg *.png”", ["filter": text]))
        }
        return PickerWindow.FileFilter(name: name, patterns: patterns)
    }

    static func isMIMEPattern(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !parts[0].contains("*")
            && (parts[1] == "*" || !parts[1].contains("*"))
    }

    /// What `--filename` opens. A name that does not exist (yet: scripts name the file they
    /// expect, or a folder of another machine's) opens the nearest folder that does, as zenity
    /// does; nil (the library's Recents) when that folder holds the library or the home folder
    /// (`/nowhere/x.jpg` would otherwise index the whole disk). Said on standard error, once.
    static func opening(_ given: FilePath, roots: [FilePath]) -> FilePath? {
        let path = given.absolute()
        var info = stat()
        if path.withCString({ stat($0, &info) }) == 0 { return path }
        let reason = errorDescription(errno)
        var folder = path.parent
        while folder.bytes.count > 1, !folder.isDirectory { folder = folder.parent }
        let home = XDGDirectories.home.absolute()
        let holdsTheLibrary = folder.bytes == [UInt8(ascii: "/")] || home.relative(to: folder) != nil
            || roots.contains { $0.relative(to: folder) != nil && $0 != folder }
        let opened = holdsTheLibrary ? nil : folder
        notice(i18n("--filename {path}: {reason}; opening {folder}",
                  ["path": String(decoding: escapedForLine(given.bytes), as: UTF8.self), "reason": reason,
                   "folder": opened.map { String(decoding: escapedForLine($0.bytes), as: UTF8.self) } ?? i18n("Recents")]))
        return opened
    }

    static func existing(_ path: FilePath, option: String) throws(UsageError) -> FilePath {
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else {
            throw UsageError(message: "\(option) \(path): \(errorDescription(errno))")
        }
        return path.absolute()
    }

    static func writableFolder(_ path: FilePath, option: String) throws(UsageError) -> FilePath {
        let folder = try existing(path, option: option)
        guard folder.isDirectory else { throw UsageError(message: "\(option) \(path): \(errorDescription(ENOTDIR))") }
        guard folder.withCString({ access($0, W_OK | X_OK) }) == 0 else {
            throw UsageError(message: "\(option) \(path): \(errorDescription(errno))")
        }
        return folder
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
