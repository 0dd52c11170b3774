// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import Glibc
import PhotoLibrary
import PickerModel

/// The window's smaller parts: the picks kept from last time, the file filters' list, a folder
/// chosen from the empty state, and the startup trace's frames.
extension PickerWindow {
    /// The app from the menu picks again what was picked when it last closed (`SavedPicks`).
    static func restorePicks(_ uris: [String], in view: PickerView, session: Session) {
        let saved = SavedPicks(uris)
        session.savedPicks = saved
        saved.restore(into: view, library: session.library)
    }

    static func fileURI(_ path: FilePath) -> String? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    static func filePath(fromURI uri: String) -> FilePath? {
        guard let path = g_filename_from_uri(uri, nil, nil) else { return nil }
        defer { g_free(path) }
        return FilePath(bytes: Array(UnsafeRawBufferPointer(start: path, count: strlen(path))))
    }

    /// PHOTOPICK_TRACE_STARTUP: when the window maps and its first frames are drawn.
    static func traceFirstFrames(of window: UnsafeMutablePointer<GtkWidget>) {
        Signal.connect(window.raw, "map") { () -> Void in
            StartupTrace.mark("mapped")
            guard let clock = gtk_widget_get_frame_clock(window) else { return }
            Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") { () -> Void in
                let frame = gdk_frame_clock_get_frame_counter(clock)
                if frame < 3 { StartupTrace.mark("frame \(frame) drawn") }
            }
        }
    }

    /// The header's list of file filters (zenity's `--file-filter`, shown when there are two or
    /// more): choosing one shows only the files its patterns match, in every album.
    static func fileFilterChooser(_ options: Options, view: PickerView) -> UnsafeMutablePointer<GtkWidget> {
        let names = options.fileFilters.map(\.name)
        let chooser = names.withCStringArray { gtk_drop_down_new_from_strings($0) }!
        photopick_accessible_set_label(chooser, i18n("File type"))
        setTooltip(chooser, i18n("Which files to show"))
        Signal.connect(chooser.raw, "notify::selected") { [weak view] in
            guard let view else { return }
            let index = Int(gtk_drop_down_get_selected(OpaquePointer(chooser)))
            guard options.fileFilters.indices.contains(index) else { return }
            view.filterName = options.fileFilters[index].name
            view.filter = AssetFilter(mimeTypes: options.mimeTypes, namePatterns: options.fileFilters[index].patterns)
        }
        return chooser
    }

    /// The folder chosen from the empty state joins the library: the window is built again
    /// over the new set of folders (nothing is picked yet: the grid was empty).
    static func reopen(_ session: Session, application: UnsafeMutablePointer<AdwApplication>,
                               window: UnsafeMutablePointer<GtkWidget>, adding folder: FilePath, in view: PickerView) {
        var remembered = false
        if session.options.remembersChosenFolders {
            // Said in the new window: this one is about to go.
            do { try LibraryFolders.add(folder); remembered = true } catch { session.pendingProblems.append("\(error)") }
        }
        let library: PhotoLibrary
        do {
            // Remembered, it joins the default folders' index: only it is read.
            library = remembered ? try PhotoLibrary(defaultFoldersAt: .standard)
                : try PhotoLibrary(roots: session.library.roots.filter(\.mayHoldALibrary) + [folder])
        } catch {
            DeveloperLog.say("cannot open \(folder.displayString): \(error)")
            view.report(i18n("{folder} cannot be opened", ["folder": folder.displayString]), printing: false)
            return
        }
        session.library = library
        // Keep the application alive between the two windows.
        g_application_hold(application.cast())
        gtk_window_destroy(window.cast())
        build(session, application: application)
        g_application_release(application.cast())
    }
}

/// The picks the app from the menu kept from last time, picked again as the window opens: those
/// the index has at once, then those its scan finds (a first run). None is dropped for not being
/// found yet: a pick whose folder is missing (a disk not plugged in: the index keeps its photos,
/// offline) waits for it, is picked when the disk comes back while the window is open, and is
/// kept for the next launch; only one whose folder is there without its file, or that the finished
/// scan did not find, is said to be gone. (Issue 37: a folder missing at launch threw away every
/// pick, those on screen too, and the next quit saved none.)
///
/// An embedded picker's `picked-uris`, set by its host (a draft's attachments), is restored the
/// same way, without a word to the person (`announces` false), and may name photos on another
/// machine by their location URI.
@MainActor final class SavedPicks {
    /// Not picked yet, in their order: the next launch gets them again.
    private(set) var waiting: [String]
    /// All of them, in their order.
    private let saved: [String]
    private var scanWatch: Subscription?
    /// Whether what was picked again, and what is gone, is said in the window.
    private let announces: Bool

    init(_ uris: [String], announces: Bool = true) {
        waiting = uris
        saved = uris
        self.announces = announces
    }

    /// Stops picking what is still waiting (the host set other picks).
    func stop() {
        scanWatch = nil
        waiting = []
    }

    /// What to keep for the next launch: `picked` (this launch's picks, in pick order) with each
    /// pick still waiting put back after the last of those saved before it, so the order of last
    /// time holds when the disk is back.
    func kept(with picked: [String]) -> [String] {
        var kept = picked
        for uri in waiting where !kept.contains(uri) {
            let before = Set(saved.prefix { $0 != uri })
            let place = kept.lastIndex { before.contains($0) }.map { $0 + 1 } ?? 0
            kept.insert(uri, at: place)
        }
        return kept
    }

    func restore(into view: PickerView, library: PhotoLibrary) {
        look(in: view, library: library, scanFinished: false)
        guard !waiting.isEmpty else { return }
        // At the end of each scan: the first's says what is gone or away; a later one (a disk
        // plugged in while the window is open is read again) picks what came back.
        scanWatch = view.controller.observe { [weak self, weak view] event in
            guard case .scanFinished = event, let self, let view, self.scanWatch != nil else { return }
            self.look(in: view, library: library, scanFinished: true)
            if self.waiting.isEmpty { self.scanWatch = nil }
        }
    }

    /// A pick picked late (its disk plugged in while the window is open) goes back to its place
    /// of last time: after the last pick saved before it.
    private func putInItsPlace(_ id: Int64, uri: String, view: PickerView, library: PhotoLibrary) {
        let before = Set(saved.prefix { $0 != uri }.compactMap { saved in
            Self.path(of: saved).flatMap { try? library.asset(path: $0)?.id }
        })
        let picked = view.selection.picked
        guard picked.last == id else { return }
        let place = picked.lastIndex { before.contains($0) }.map { $0 + 1 } ?? 0
        view.selection.move(from: picked.count - 1, to: place)
    }

    /// A saved pick's path: a `file://` URI's, or a location URI itself (`sftp://…`).
    private static func path(of uri: String) -> FilePath? {
        let given = FilePath(uri)
        return given.isLocationURI ? given : PickerWindow.filePath(fromURI: uri)
    }

    /// Whether a scan's end was looked at already (what is away is said once).
    private var sawScanFinish = false

    private func look(in view: PickerView, library: PhotoLibrary, scanFinished: Bool) {
        var restored = 0, gone = 0, away = 0
        var still: [String] = []
        for uri in waiting {
            guard let path = Self.path(of: uri) else { gone += 1; continue }
            if path.isLocationURI {
                // (On another machine: the index says whether it is there.)
                if let asset = try? library.asset(path: path) {
                    if view.selection.number(of: asset.id) == nil, case .picked = view.selection.toggle(asset.id) {
                        restored += 1
                        if scanFinished { putInItsPlace(asset.id, uri: uri, view: view, library: library) }
                    }
                } else if scanFinished { gone += 1 } else { still.append(uri) }
                continue
            }
            var info = stat()
            let exists = path.withCString { lstat($0, &info) } == 0
            // (The index keeps the photos of a disk not plugged in: such a pick waits.)
            if exists, let asset = try? library.asset(path: path) {
                if view.selection.number(of: asset.id) != nil { continue }
                if case .picked = view.selection.toggle(asset.id) {
                    restored += 1
                    if scanFinished { putInItsPlace(asset.id, uri: uri, view: view, library: library) }
                }
                continue
            }
            if exists {
                // Not indexed yet (the scan will find it), or, once the scan is done, outside the library.
                if scanFinished { gone += 1 } else { still.append(uri) }
            } else if path.parent.isDirectory {
                gone += 1
            } else {
                still.append(uri)
                if scanFinished && !sawScanFinish { away += 1 }
            }
        }
        if scanFinished { sawScanFinish = true }
        waiting = still
        guard announces else { return }
        if restored > 0 {
            view.showToast(ni18n("{count} photo is still picked from last time", "{count} photos are still picked from last time", restored))
        }
        if gone > 0 {
            view.report(ni18n("{count} photo picked last time is no longer in the library", "{count} photos picked last time are no longer in the library", gone))
        }
        if away > 0 {
            view.report(ni18n("{count} photo picked last time is on a disk that is not connected: it stays picked for when the disk is back",
                              "{count} photos picked last time are on a disk that is not connected: they stay picked for when the disk is back", away))
        }
    }
}

