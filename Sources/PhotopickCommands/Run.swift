// SPDX-License-Identifier: GPL-3.0-or-later
import GObjectSupport
import Glibc
import PhotoLibrary
import Thumbnails

// photopick [COMMAND] [OPTIONS]: the picker window or a script command. The commands live in this
// library (the executable only calls `run`), so the fuzz targets can parse command lines too.

// (On the main actor: `thumbnail` runs the GLib main loop that delivers the loader's results.)
@MainActor let commands: [(name: String, summary: String, options: () -> OptionParser, run: @MainActor ([[UInt8]]) throws -> Int32)] = [
    ("albums", N_("List albums with their counts"), albumsOptions, albumsCommand),
    ("ls", N_("List the photos and videos of an album, or the files that could not be read"), listOptions, listCommand),
    ("index", N_("Index the library now, with progress"), indexOptions, indexCommand),
    ("thumbnail", N_("Make the freedesktop thumbnails of files and print their paths"), thumbnailOptions, thumbnailCommand),
    ("cameras", N_("List the cameras with their formats, sizes and frame rates"), camerasOptions, camerasCommand),
    ("capture", N_("Take a photo with the camera and print its path"), captureOptions, captureCommand),
    ("portal", N_("The desktop's photo chooser: the FileChooser backend of xdg-desktop-portal"), portalOptions, portalCommand),
]

@MainActor func topLevelHelp() -> Int32 {
    var text = i18n("Usage:") + "\n  photopick [COMMAND] [OPTION…]\n\n" + i18n("Photopick is a photo and video picker.") + "\n\n"
        + i18n("Commands:") + "\n"
    for command in commands { text += "  " + command.name.padding(10) + Localization.translate(command.summary) + "\n" }
    text += "\n" + i18n("Without a command, opens the picker window, a drop-in for zenity --file-selection.") + "\n"
    text += i18n("Run “photopick COMMAND --help” for a command's options. The window's options:") + "\n\n"
    text += PickRequest.parser().optionsHelp
    var output = StandardOutput()
    output.write(text)
    output.flush()
    return ExitStatus.success
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}

/// Runs the command line of this process and returns its exit status.
// On the main actor: the window's command runs GTK on this thread.
@MainActor public func run() -> Int32 {
    // A reader that goes away (`photopick ls | head -1`) is not a failure: writes then fail with
    // EPIPE, and StandardOutput ends the program with status 0, instead of SIGPIPE killing it (141).
    StartupTrace.mark("run")
    signal(SIGPIPE, SIG_IGN)
    // The program's own: a reader's crash is marked in its journal (a library leaves a host's
    // signals alone).
    CrashJournal.installSignalHandlers()
    SQLiteConnection.turnOffMemoryStatisticsForThisProgram()
    PixbufLoaders.dropUnsafeModuleFile()
    // GLib converts its help text to the locale's charset: under the C locale "…" would print as "?".
    setlocale(LC_ALL, "")
    if String(cString: nl_langinfo(nl_item(CODESET))) != "UTF-8" { setlocale(LC_CTYPE, "C.UTF-8") }
    // The window's words in the person's language, from the catalogues installed beside the binary.
    if let directory = Localization.installedLocaleDirectory(executable: "/proc/self/exe") {
        Localization.bind(localeDirectory: directory)
    }
    let arguments = (0..<Int(CommandLine.argc)).map { index in
        let pointer = CommandLine.unsafeArgv[index]!
        return Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
    }
    if PickRequest.invokedAs == "zenity", !arguments.contains(Array("--file-selection".utf8)) {
        return ZenityStandIn.handOver(arguments)
    }
    let first = arguments.count > 1 ? String(decoding: arguments[1], as: UTF8.self) : nil
    if first == "--help" || first == "-h" || first == "help" || first == "-?" { return topLevelHelp() }
    // For the build (data/photopick.1 is its output): not an option a person needs.
    if first == "--man-page" {
        var output = StandardOutput()
        output.write(manPage())
        output.flush()
        return ExitStatus.success
    }
    // The window's decode worker (Thumbnails/Isolation): `decode-worker --memory BYTES --formats F`.
    if first == "decode-worker" { return DecodeWorker.run(arguments: arguments.dropFirst(2).map { String(decoding: $0, as: UTF8.self) }) }
    // The index's metadata worker (PhotoLibrary/Metadata/Isolation).
    if first == "metadata-worker" { return MetadataWorker.run() }
    // A video's thumbnailer, confined (Thumbnails/Isolation/ConfinedThumbnailer).
    if first == "confine-thumbnailer" { return ConfinedThumbnailer.run(arguments: arguments.dropFirst(2).map { String(decoding: $0, as: UTF8.self) }) }
    var name = "window"
    var rest = arguments
    if let first, !first.hasPrefix("-") {
        guard commands.contains(where: { $0.name == first }) else {
            return usage(i18n("unknown command “{command}” (photopick --help lists the commands)", ["command": first]))
        }
        name = first
        rest = [Array("photopick \(first)".utf8)] + arguments.dropFirst(2)
    }
    let run: @MainActor ([[UInt8]]) throws -> Int32 = name == "window" ? windowCommand : commands.first { $0.name == name }!.run
    let status = runReporting(run, rest)
    // A configuration file refused on the way (a named pipe as `folders`), said once.
    for problem in ConfigurationFile.takeProblems() { warn(problem) }
    return status
}

/// Runs a command; its errors become a line on standard error and a failing status.
@MainActor private func runReporting(_ run: @MainActor ([[UInt8]]) throws -> Int32, _ rest: [[UInt8]]) -> Int32 {
    do {
        return try run(rest)
    } catch let error as UsageError {
        return usage(error.message)
    } catch let error where isIndexDamage(error) && !StandardOutput.hasWritten {
        // The damage is marked beside the index: opening it again sets the file aside and
        // rebuilds it (and says so). Once, and only before anything was printed.
        do {
            return try run(rest)
        } catch {
            warn("\(error)")
            return ExitStatus.failure
        }
    } catch {
        warn("\(error)")
        return ExitStatus.failure
    }
}

/// Damage SQLite found inside the index (or the check after a scan did).
struct IndexDamage: Error, CustomStringConvertible {
    let reason: String
    var description: String { "the index is damaged: \(reason)" }
}

func isIndexDamage(_ error: any Error) -> Bool {
    if error is IndexDamage { return true }
    if case ScanError.database(let database) = error { return database.isCorruption }
    return (error as? DatabaseError)?.isCorruption == true
}
