// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import PhotoLibrary
import PickerModel

/// The picks a host set (`picked-uris`: a draft's attachments, the app from the menu's picks of
/// last time), picked again: those the index has at once, then those its scan finds (a first
/// run). None is dropped for not being found yet: a pick whose folder is missing (a disk not
/// plugged in: the index keeps its photos, offline) waits for it and is picked when the disk comes
/// back while the picker is open, in its place. (Issue 37: a folder missing at launch threw away
/// every pick, those on screen too, and the next quit saved none.) A photo on another machine is
/// named by its location URI.
@MainActor final class SavedPicks {
    /// Not picked yet, in their order: the next launch gets them again.
    private(set) var waiting: [String]
    /// All of them, in their order.
    private let saved: [String]
    private var scanWatch: Subscription?
    init(_ uris: [String]) {
        waiting = uris
        saved = uris
    }

    /// Stops picking what is still waiting (the host set other picks).
    func stop() {
        scanWatch = nil
        waiting = []
    }

    func restore(into picker: Picker, library: PhotoLibrary) {
        look(in: picker, library: library, scanFinished: false)
        guard !waiting.isEmpty else { return }
        // At the end of each scan: what it found; a later one (a disk plugged in while the picker
        // is open is read again) picks what came back.
        scanWatch = picker.controller.observe { [weak self, weak picker] event in
            guard case .scanFinished = event, let self, let picker, self.scanWatch != nil else { return }
            self.look(in: picker, library: library, scanFinished: true)
            if self.waiting.isEmpty { self.scanWatch = nil }
        }
    }

    /// A pick picked late (its disk plugged in while the window is open) goes back to its place
    /// of last time: after the last pick saved before it.
    private func putInItsPlace(_ id: Int64, uri: String, picker: Picker, library: PhotoLibrary) {
        let before = Set(saved.prefix { $0 != uri }.compactMap { saved in
            Self.path(of: saved).flatMap { try? library.asset(path: $0)?.id }
        })
        let picked = picker.selection.picked
        guard picked.last == id else { return }
        let place = picked.lastIndex { before.contains($0) }.map { $0 + 1 } ?? 0
        picker.selection.move(from: picked.count - 1, to: place)
    }

    /// A saved pick's path: a `file://` URI's, or a location URI itself (`sftp://…`).
    private static func path(of uri: String) -> FilePath? {
        let given = FilePath(uri)
        return given.isLocationURI ? given : RemoteFiles.localPath(ofFileURI: given)
    }

    private func look(in picker: Picker, library: PhotoLibrary, scanFinished: Bool) {
        var still: [String] = []
        for uri in waiting {
            guard let path = Self.path(of: uri) else { continue }
            if path.isLocationURI {
                // (On another machine: the index says whether it is there.)
                if let asset = try? library.asset(path: path) {
                    pick(asset.id, uri: uri, picker: picker, library: library, late: scanFinished)
                } else if !scanFinished {
                    still.append(uri)
                }
                continue
            }
            var info = stat()
            let exists = path.withCString { lstat($0, &info) } == 0
            // (The index keeps the photos of a disk not plugged in: such a pick waits.)
            if exists, let asset = try? library.asset(path: path) {
                pick(asset.id, uri: uri, picker: picker, library: library, late: scanFinished)
            } else if exists ? !scanFinished : !path.parent.isDirectory {
                // Not indexed yet (the scan will find it), or its folder away (a disk not plugged
                // in); once the scan is done, a file it did not find is outside the library.
                still.append(uri)
            }
        }
        waiting = still
    }

    private func pick(_ id: Int64, uri: String, picker: Picker, library: PhotoLibrary, late: Bool) {
        guard picker.selection.number(of: id) == nil, case .picked = picker.selection.toggle(id) else { return }
        if late { putInItsPlace(id, uri: uri, picker: picker, library: library) }
    }
}
