import Glibc
import PhotoLibrary
import PickerUI

// MARK: photopick (the window)

/// Opens the picker on the library. Confirming prints the picked paths in pick order, one a line,
/// and exits 0; cancelling or closing the window prints nothing and exits 1. On the GTK thread.
@MainActor func windowCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = OptionParser(parameters: "- pick photos and videos", summary: "Opens the picker. The picked files are printed in the order they were picked.", options: [
        libraryOption,
        OptionParser.Option("no-camera", .flag, "Do not show the camera as the first cell"),
        cameraOption,
        OptionParser.Option("max", .integer, "Allow at most N picks", argument: "N"),
        OptionParser.Option("album", short: "a", .string, "Open this album (default: Recents); see photopick albums", argument: "NAME"),
        OptionParser.Option("desktop", .flag, "Launched from the app menu: reopen the album of last time"),
    ])
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage("unexpected argument “\(String(decoding: rest[0], as: UTF8.self))” (photopick --help lists the commands)") }
    if let maximum = parser.integer("max"), maximum < 1 { return usage("--max must be 1 or more") }
    // Without --library, a missing Pictures folder is the window's empty state, not an error.
    let given = parser.filenames("library")
    let roots = given.isEmpty && LibraryFolders.defaults.allSatisfy({ !$0.isDirectory })
        ? [XDGDirectories.mediaFolders[0]] : try resolveRoots(given)
    guard PickerWindow.canOpenDisplay() else {
        warn("cannot open a display (is DISPLAY or WAYLAND_DISPLAY set?); the script commands work without one: photopick --help")
        return ExitStatus.failure
    }
    let library = try PhotoLibrary(roots: roots)
    for notice in library.notices { warn(notice.message) }
    // The window opens at once; indexing (all of it on a first run) goes on behind it.
    var options = PickerWindow.Options()
    if let name = parser.string("album") {
        guard let album = try library.album(named: name) else {
            return usage("no album named “\(name)” (photopick albums lists them)")
        }
        options.album = album
    }
    options.restoresAlbum = parser.flag("desktop")
    // A folder chosen in the window joins the default folders for later runs; with --library
    // the person named the folders, and the choice lasts for this window only.
    options.remembersChosenFolders = given.isEmpty
    options.showsCamera = !parser.flag("no-camera")
    options.cameraDevice = parser.string("camera")
    options.maximum = parser.integer("max")
    guard let picked = PickerWindow.run(library: library, options: options) else { return ExitStatus.failure }
    var output = StandardOutput()
    for asset in picked {
        output.write(asset.path.bytes)
        output.write([UInt8(ascii: "\n")])
    }
    output.flush()
    return ExitStatus.success
}
