// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import Dispatch
import GObjectSupport
import Glibc
import PhotoLibrary
import PhotopickApp

// MARK: photopick (the window)

/// Opens the picker on the library (the options are PickRequest's). Confirming prints the picked
/// files in pick order and exits 0; cancelling or closing prints nothing and exits 1; a timeout
/// exits 5; an error says one line and exits 2, or 255 in zenity's mode. On the GTK thread.
@MainActor func windowCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let codes = PickRequest.exitCodes(for: arguments)
    let parser = PickRequest.parser()
    guard let rest = try parseOrReport(parser, arguments) else { return codes.error }
    if parser.flag("version") {
        var output = StandardOutput()
        output.write("photopick \(photopickVersion)\n")
        output.flush()
        return ExitStatus.success
    }
    let request: PickRequest
    do {
        request = try PickRequest(parser: parser, rest: rest)
    } catch {
        warn(error.message)
        return codes.error
    }
    if let display = request.display {
        // As GTK 3's --display in zenity: that X server, whatever the session's backend.
        setenv("DISPLAY", display, 1)
        setenv("GDK_BACKEND", "x11", 1)
    }
    do {
        return try pick(request)
    } catch let error as UsageError {
        warn(error.message)
        return codes.error
    } catch {
        warn("\(error)")
        return codes.error
    }
}

@MainActor private func pick(_ request: PickRequest) throws -> Int32 {
    let codes = request.exitCodes
    if let question = request.chooserRequest {
        switch FileChooser.run(question) {
        case .noDisplay:
            warn(i18n("cannot open a display (is DISPLAY or WAYLAND_DISPLAY set?); the script commands work without one: photopick --help"))
            return codes.error
        case .cancelled: return codes.cancelled
        case .timedOut: return codes.timedOut
        case .chosen(let paths):
            var output = StandardOutput()
            output.write(PickOutput.render([], paths: paths, format: request.output, library: nil))
            output.flush()
            return codes.confirmed
        }
    }
    let library = request.ofDefaultFolders ? try PhotoLibrary(defaultFoldersAt: .standard) : try PhotoLibrary(roots: request.roots)
    keptUntilExit.append(library)
    StartupTrace.mark(library.indexWasCheckedAtOpening ? "library opened, its index checked page by page (not sealed)" : "library opened")
    var options = request.options
    // A wrong album is said before anything else, display or not.
    if let name = request.albumName {
        guard try library.album(named: name) != nil else {
            throw UsageError(message: noAlbum(name))
        }
        options.album = name
    }
    for notice in library.notices { warn(notice.message) }
    if !request.remoteRootsToCheck.isEmpty {
        // Mounting and checking a folder on another machine takes as long as GTK's start (0.5 s
        // over SFTP on loopback): they overlap, and a wrong location still ends the window
        // before it shows, as a wrong local folder does before it starts.
        let check = BackgroundCheck(request.remoteRootsToCheck)
        options.beforeShowing = { check.failure() }
    }
    // The window opens at once; indexing (all of it on a first run) goes on behind it.
    if options.album == nil, let folder = request.startFolder {
        // Its album may not be indexed yet (a first run, a folder new to the library): read
        // that one folder now, which takes a moment, not the whole library.
        if try library.album(forFolder: folder) == nil { try library.rescan(folders: [folder]) }
        switch try library.album(forFolder: folder) {
        case .folder(let id)?:
            // A folder whose photos are all in its subfolders (a folder a day) opens with them;
            // one with none anywhere opens empty, and says so. It opened Recents (issue 40,
            // point 9).
            let own = try library.summary(of: .folder(id: id))?.count ?? 0
            options.album = own > 0 ? "folder:\(id)" : "tree:\(id)"
        case .tree(let id)?: options.album = "tree:\(id)"
        case .smart(let smart)?: options.album = smart.name
        case .recentlyPicked?: options.album = Album.recentlyPickedName
        case nil: break
        }
    }
    // --date: the album opens with the focus on its newest photo of that date or before.
    if let end = request.dateEnd, options.focusedPath == nil,
       let album = try library.album(named: options.album ?? "Recents") {
        let result = try library.fetchAssets(in: album)
        if let position = try library.position(before: end, in: result), let asset = try library.asset(id: result.id(at: position)) {
            options.focusedPath = asset.path
        }
    }
    // The window is the picker widget (PhotopickPicker) with the widget's C shell linked in
    // here, where a host's libphotopick-1.so loads the same implementation.
    photopick_shell_attach_linked()
    let outcome = PickerWindow.run(library: library, options: options)
    // The library is kept until the process ends (keptUntilExit), so its connection's close never
    // seals the index: sealed here, the next start need not check it (59 ms at 60,000 photos).
    // (A window that could not show removes an empty index instead.)
    if case .failed = outcome {} else { library.sealIfIdle() }
    switch outcome {
    case .noDisplay:
        warn(i18n("cannot open a display (is DISPLAY or WAYLAND_DISPLAY set?); the script commands work without one: photopick --help"))
        return codes.error
    case .cancelled:
        return codes.cancelled
    case .timedOut:
        return codes.timedOut
    case .failed(let message):
        warn(message)
        // (Opened while its folders were checked: a wrong location leaves no index behind.)
        library.removeIndexIfEmpty()
        return codes.error
    case .handedToRunningApp:
        return codes.confirmed
    case .stopped(let stop):
        // As if the signal had ended the process (a script sees 143 for SIGTERM, as before).
        signal(stop, SIG_DFL)
        raise(stop)
        return 128 + stop
    case .picked(let files):
        // A path typed with Ctrl+L that the library does not hold: the files as they are.
        guard files.allSatisfy({ $0.asset != nil }) else { return answer([], paths: files.map(\.path), request: request, library: library) }
        var copies: [Int64: FilePath] = [:]
        for file in files where file.path != file.asset!.path { copies[file.asset!.id] = file.path }
        let assets: [Asset]
        do {
            assets = try PickOutput.existing(files.map { $0.asset! }, remoteURIs: request.output.givesURIs, copies: copies)
        } catch {
            warn(error.message)
            return codes.error
        }
        return answer(assets, paths: assets.map { copies[$0.id] ?? $0.path }, request: request, library: library)
    }
}

/// Prints the answer (`paths`, copied first with `--copy-to`; `assets`, their rows for JSON, or
/// none for a typed path) and returns the exit status.
@MainActor private func answer(_ assets: [Asset], paths: [FilePath], request: PickRequest, library: PhotoLibrary) -> Int32 {
    var paths = paths
    if let destination = request.copyDestination {
        do {
            paths = try FileCopier(into: destination).copy(paths)
        } catch {
            warn(error.description)
            return request.exitCodes.error
        }
    }
    var output = StandardOutput()
    output.write(PickOutput.render(assets, paths: paths, format: request.output, library: library))
    output.flush()
    return request.exitCodes.confirmed
}

/// What the process keeps until it exits: the picker's library. Releasing it waits for its
/// readers' threads, and one may be blocked on a server that stopped answering; the answer is
/// given and the process ends right after, and those threads with it.
@MainActor private var keptUntilExit: [AnyObject] = []

/// `checkRemoteRoot` of some locations on a thread of its own; `failure` waits for it, at most
/// until `deadline` after it began.
private final class BackgroundCheck: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var message: String?
    private let began = DispatchTime.now()

    /// How long the window's start waits for a server: one that has not answered by then is
    /// taken for one that does not answer (the window opens, and says it cannot be reached).
    static let deadline = 3.0

    init(_ locations: [FilePath]) {
        WorkerPool.detached(name: "remote-check") { [self] in
            for location in locations {
                do throws(UsageError) { try checkRemoteRoot(location) } catch {
                    lock.withLock { message = error.message }
                    break
                }
            }
            done.signal()
        }
    }

    /// The first location's reason, or nil when all of them are folders (or do not answer).
    func failure() -> String? {
        guard done.wait(timeout: began + Self.deadline) == .success else { return nil }
        done.signal()
        return lock.withLock { message }
    }
}
