// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PhotoLibrary
import PickerModel

// MARK: What a host asks (the shell's functions, Picker+Shell) and what it is told (signals)
extension Picker {
    /// The person confirmed: the picks' URIs, in pick order, as `confirmed`.
    func confirmed(_ assets: [Asset]) {
        controller.recordPicks(assets.map(\.id))
        emitConfirmed(uris(assets))
    }

    /// The person cancelled (Cancel, Escape).
    func cancelled() {
        shell.emit_cancelled(picker)
    }

    func emitConfirmed(_ picked: [String]) {
        picked.withCStringArray { array in
            array.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: picked.count + 1) {
                shell.emit_confirmed(picker, $0)
            }
        }
    }

    /// The picks as URIs, without those deleted since they were picked; a pick on another
    /// machine as its local copy's (the confirm waited for it), or not before it is complete.
    private func uris(_ assets: [Asset]) -> [String] {
        assets.compactMap { asset in
            guard let path = controller?.answerPath(of: asset) else { return nil }
            if path.isLocationURI { return path.displayString }
            guard path.withCString({ access($0, F_OK) }) == 0 else {
                // (For the developer, and a script's standard error: the answer is short of one.)
                DeveloperLog.say(i18n("{file} was deleted or moved after it was picked, and is left out", ["file": path.displayString]))
                return nil
            }
            return Self.uri(of: path)
        }
    }

    /// A remote pick's copy landed: the host may read it as a local file now (pick-copied).
    func announceCopy(_ id: Int64) {
        guard let controller, selection.number(of: id) != nil, let copy = controller.fetches.copy(of: id),
              !copiesAnnounced.contains(id), let asset = controller.assets([id]).first, let copyURI = Self.uri(of: copy) else { return }
        copiesAnnounced.insert(id)
        shell.emit_pick_copied(picker, Self.uri(of: asset.path) ?? asset.path.displayString, copyURI)
    }

    /// What is picked, in pick order, each by its own URI (a remote pick's location, before and
    /// after its copy); before the build, the picks the host set.
    var pickedURIs: [String] {
        guard let controller else { return pendingPicks ?? [] }
        return controller.assets(selection.picked).map { Self.uri(of: $0.path) ?? $0.path.displayString }
    }

    /// The host's picks (picked-uris): instead of what is picked, in their order; those not found
    /// yet as the scan finds them.
    func setPickedURIs(_ uris: [String]) {
        guard isBuilt, controller != nil else {
            pendingPicks = uris
            shell.notify_picked_uris(picker)
            return
        }
        restoredPicks?.stop()
        selection.remove(Set(selection.picked))
        let restorer = SavedPicks(uris)
        restorer.restore(into: self, library: library)
        restoredPicks = restorer
    }

    /// A path's `file://` URI, or a location URI as it is.
    static func uri(of path: FilePath) -> String? {
        if path.isLocationURI { return path.displayString }
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// photopick_picker_clear.
    func clear() {
        buildIfWaiting()
        guard controller != nil else { return }
        selection.remove(Set(selection.picked))
    }

    /// The focus into the picker (the host's grab_focus, and GTK's when Tab comes in from the
    /// window's header): back on the photo it was on, the first photo the first time.
    func grabFocus() -> Bool {
        buildIfWaiting()
        guard controller != nil else { return false }
        if let id = revealedAsset {
            revealedAsset = nil
            focusAsset(id)
        } else {
            focusGrid(returning: gridHadFocus)
        }
        return true
    }

    /// One of the picker.* actions (the shell installs them, with their accelerators).
    func activate(_ action: String) {
        buildIfWaiting()
        guard controller != nil else { return }
        PickerCommands.named(action)?.run(self)
    }

    /// The header's widgets for the host's header bar.
    var headerWidgets: (start: UnsafeMutablePointer<GtkWidget>, title: UnsafeMutablePointer<GtkWidget>, end: UnsafeMutablePointer<GtkWidget>) {
        (startBox, titleBox, endBox)
    }

    /// photopick_picker_show_message: a sentence of the program's, over the grid for five
    /// seconds (long enough to read a line; the picker's own problems stay until dismissed).
    func showMessage(_ message: String) {
        buildIfWaiting()
        reported.append(message)
        showToast(message, seconds: 5)
    }

    /// photopick_picker_reveal_uri: the grid scrolled to the photo, the cursor on it. The focus
    /// moves only if it is in the picker already (a widget never takes it by itself); else the
    /// next focus into the grid (grab_focus, Tab) lands there.
    func reveal(uri: String) {
        buildIfWaiting()
        guard controller != nil else { return }
        let given = FilePath(uri)
        guard let path = given.isLocationURI ? given : RemoteFiles.localPath(ofFileURI: given),
              let asset = try? library.asset(path: path) else { return }
        if focusIsInside {
            revealedAsset = nil
            focusAsset(asset.id)
        } else if revealAsset(asset.id) {
            // (GTK 4.8's grid keeps its cursor only while it has the focus: it is kept here.)
            revealedAsset = asset.id
        }
    }
}
