// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// Picks on another machine: their copies' rings in the cells and the strip follow the fetch
/// store by themselves (GridCell, PickedStrip); here are what the person does about a copy
/// (cancel it, try it again) and a confirm that waits for the copies: the primary button says
/// "Fetching 2 of 3…" and the answer goes once every pick is local.
extension Picker {
    /// The cell's cancel button: the copy stops, its partial file goes, and the photo is unpicked.
    /// The buttons of a pick's copy, in its cell and strip item (`fetch.cancel`, `fetch.retry`,
    /// with the asset's id): actions of the view's own widget, which no host sees among the
    /// picker's actions.
    func installFetchActions() {
        let group = g_simple_action_group_new()!
        let type = g_variant_type_new("x")
        defer { g_variant_type_free(type) }
        for (name, run) in [("cancel", { (picker: Picker, id: Int64) in picker.cancelFetch(id) }),
                            ("retry", { (picker: Picker, id: Int64) in picker.retryFetch(id) })] {
            let action = g_simple_action_new(name, type)!
            Signal.connect(action.raw, "activate", object: { [weak self] parameter in
                guard let self else { return }
                run(self, Int64(g_variant_get_int64(OpaquePointer(parameter))))
            })
            g_action_map_add_action(OpaquePointer(group.raw), OpaquePointer(action.raw))
            g_object_unref(action.raw)
        }
        gtk_widget_insert_action_group(body, "fetch", OpaquePointer(group.raw))
        g_object_unref(group.raw)
    }

    func cancelFetch(_ id: Int64) {
        // (The controller stops the copy of what is unpicked.)
        selection.remove([id])
    }

    /// The cell's retry button.
    func retryFetch(_ id: Int64) {
        controller.fetches.retry(id)
    }

    /// Confirming (or opening, or copying the picks to a folder) while copies are under way: `then`
    /// waits for them, and the primary button counts them. False when the picks are all local
    /// and `then` can run now; true when it waits, or when a copy failed (said in a toast: it
    /// waits for a retry, or for that photo to be unpicked).
    func whenPicksFetched(_ then: @escaping @MainActor () -> Void) -> Bool {
        controller.releaseFetches()
        let pending = controller.picksBeingFetched
        guard !pending.isEmpty else {
            afterFetches = nil
            return false
        }
        if let failed = pending.first(where: { if case .failed = controller.fetches.state(of: $0) { true } else { false } }) {
            afterFetches = nil
            sayFetchFailed(failed)
            return true
        }
        afterFetches = then
        updateConfirmButton()
        sayFetchProgress(beginning: true)
        return true
    }

    /// What a screen reader hears of the copies a confirm waits for (the button's words change,
    /// and are not read): where they stand when the wait begins, then each quarter done.
    private func sayFetchProgress(beginning: Bool) {
        if beginning {
            fetchQuarterSaid = 0
            if let label = fetchingLabel { say(label) }
            return
        }
        let progress = controller.fetches.progress(of: selection.picked)
        guard progress.total > 0 else { return }
        let quarter = min(3, Int(4 * Double(progress.copied) / Double(progress.total)))
        guard quarter > fetchQuarterSaid else { return }
        fetchQuarterSaid = quarter
        // Translators: said to a screen reader while picked photos are copied from another computer.
        say(i18n("Fetched {percent} %", ["percent": Localization.number(quarter * 25)]))
    }

    /// A copy changed: the button counts, and what waits goes on once all are local.
    func fetchesChanged(_ id: Int64) {
        guard awaitingFetches else { return }
        if case .failed? = controller.fetches.state(of: id), selection.number(of: id) != nil {
            afterFetches = nil
            updateConfirmButton()
            sayFetchFailed(id)
            gtk_widget_error_bell(grid)
            return
        }
        if controller.picksBeingFetched.isEmpty {
            let next = afterFetches
            afterFetches = nil
            updateConfirmButton()
            if selection.count > 0 { next?() }
            return
        }
        updateConfirmButton()
        sayFetchProgress(beginning: false)
    }

    /// "Fetching 12 MB of 40 MB, 8 s left…": the copies under way among the picks, all of them
    /// together, while a confirm waits. ("Fetching 3 of 3…" said nothing of the last copy at
    /// 20 %: issue 40, point 13.)
    var fetchingLabel: String? {
        guard awaitingFetches else { return nil }
        let progress = controller.fetches.progress(of: selection.picked)
        guard progress.total > 0 else { return i18n("Fetching…") }
        let copied = Self.size(progress.copied), total = Self.size(progress.total)
        if let seconds = progress.secondsLeft, seconds.isFinite, seconds >= 1 {
            let left = seconds < 90 ? ni18n("{count} s left", "{count} s left", Int(seconds.rounded()))
                : ni18n("{count} min left", "{count} min left", Int((seconds / 60).rounded()))
            // Translators: the confirm button while picked photos are copied from another computer.
            return i18n("Fetching {copied} of {total}, {left}…", ["copied": copied, "total": total, "left": left])
        }
        // Translators: the confirm button while picked photos are copied from another computer.
        return i18n("Fetching {copied} of {total}…", ["copied": copied, "total": total])
    }

    /// "12.3 MB", as Files writes a size.
    static func size(_ bytes: Int64) -> String {
        guard let text = g_format_size(guint64(max(0, bytes))) else { return String(bytes) }
        defer { g_free(text) }
        return String(cString: text)
    }

    private func sayFetchFailed(_ id: Int64) {
        guard case .failed(let reason)? = controller.fetches.state(of: id) else { return }
        let name = controller.asset(id)?.displayName ?? ""
        let problem = i18n("{file} could not be fetched ({reason}): try again, or unpick it", ["file": name, "reason": reason])
        report(problem, printing: false)
        say(problem)  // (a toast is not read)
    }

    /// A folder that answers again is no longer said not to.
    func dismissAnsweredFolders() {
        for (folder, toast) in offlineToasts where controller.service.offlineRoots[folder] == nil {
            adw_toast_dismiss(toast.opaque)
            offlineToasts[folder] = nil
        }
    }

    /// A folder on another machine that does not answer is mounted once more, asking the person
    /// what its server asks: a password (GtkMountOperation's dialog, over the window), as Files
    /// asks. A server that is away fails without a dialog; a dialog cancelled is not shown again.
    func mountOfflineFoldersAsking() {
        guard let root = gtk_widget_get_root(widget) else { return }
        for folder in controller.service.offlineRoots.keys.sorted() where folder.isLocationURI && askedToMount.insert(folder).inserted {
            guard let operation = gtk_mount_operation_new(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self)) else { continue }
            controller.service.mountAsking(folder, through: UnsafeMutableRawPointer(operation)) { failure in
                g_object_unref(UnsafeMutableRawPointer(operation))
                if let failure { DeveloperLog.say("cannot mount \(folder.displayString): \(failure)") }
            }
        }
    }
}
