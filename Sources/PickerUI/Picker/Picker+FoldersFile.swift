// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import PhotoLibrary
import PickerModel

/// A picker of the person's own folders (no library-folders given) follows their list: a folder
/// added or removed in the app's Library Folders window, in another picker's "Choose Folder…" or
/// by another Photopick process shows or goes here too, without the host doing anything.
extension Picker {
    /// Watches `LibraryFolders.file` while the picker shows the default folders.
    func followTheFoldersFile() {
        guard !isHosted, libraryFolders.isEmpty else {
            stopFollowingTheFoldersFile()
            return
        }
        guard foldersFileMonitor == nil else { return }
        let file = LibraryFolders.file.withCString { g_file_new_for_path($0) }!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        // (The list is written aside and renamed over: a move into its place.)
        guard let monitor = g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else { return }
        foldersFileMonitor = GObjectRef(UnsafeMutableRawPointer(monitor), transfer: .full)
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, GFileMonitorEvent,
                                   UnsafeMutableRawPointer?) -> Void = { _, _, _, _, data in
            let handler: @MainActor () -> Void = Signal.handler(data)
            MainActor.assumeIsolated { handler() }
        }
        Signal.connect(UnsafeMutableRawPointer(monitor), "changed", thunk: unsafeBitCast(thunk, to: GCallback.self),
                       handler: { @MainActor [weak self] in self?.foldersFileChanged() } as @MainActor () -> Void)
    }

    func stopFollowingTheFoldersFile() {
        foldersFileSettles.cancel()
        if let monitor = foldersFileMonitor { g_file_monitor_cancel(monitor.pointer(as: GFileMonitor.self)) }
        foldersFileMonitor = nil
    }

    /// A write is several events: the picker acts once they have settled, and only when the
    /// folders it would show are others than those it shows.
    private func foldersFileChanged() {
        foldersFileSettles.schedule(after: 150) { [weak self] in
            guard let self, !self.isHosted, self.libraryFolders.isEmpty, let controller = self.controller else { return }
            // (The default folders' library is made of them all, present or not.)
            guard !controller.showsLibrary(of: LibraryFolders.defaults) else { return }
            self.build()
        }
    }
}
