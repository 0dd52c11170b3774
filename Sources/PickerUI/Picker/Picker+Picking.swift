// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// Picking, confirming, and what the picker says (toasts, problems).
extension Picker {

    func toggle(at position: Int) {
        // The camera slot takes a photo instead.
        if position == 0 && model.showsCamera {
            openCapture()
            return
        }
        guard let id = model.assetID(at: position) else { return }
        let refusal: String
        if selection.number(of: id) == nil, let asset = controller.asset(id), !controller.isRemote(asset.path), controller.isOffline(asset.path) {
            // (Its path would name no file: picked, it could not be handed over.)
            refusal = i18n("This photo is on a disk that is not connected, so it cannot be picked")
        } else {
            // What the toggle makes the picker say meanwhile (the picks after an unpicked one
            // closing up) is said after it, in one piece.
            heldNews = []
            let outcome = selection.toggle(id)
            let meanwhile = heldNews ?? []
            heldNews = nil
            switch outcome {
            case .picked, .unpicked:
                // A pick or an unpick of its own starts the next range (Shift).
                rangeAnchor = (id, position)
                rangeAdded = []
                // Orca 43 reads a grid cell again at a change of its checked state, but says
                // nothing of it (its name's new "picked 2 of 3" is left out, and "checked" needs
                // an action named "toggle"): the news is said.
                let news: String
                if case .picked(let number) = outcome {
                    news = i18n("picked {number} of {count}", ["number": String(number), "count": String(selection.count)])
                } else {
                    // Translators: said to a screen reader when the focused photo is unpicked.
                    news = i18n("not picked")
                }
                say(([news] + meanwhile).joined(separator: ". "))
                return
            case .refused(let reason): refusal = i18n("{explanation}, so it cannot be picked", ["explanation": reason])
            case .refusedAtMaximum: refusal = i18n("You can pick up to {maximum}", ["maximum": Localization.number(selection.maximum ?? 0)])
            }
        }
        cell(showing: id)?.shake()
        showToast(refusal, answering: true)
        // (A toast is not read out: the refusal is told as news too.)
        say(refusal)
        gtk_widget_error_bell(grid)
    }

    /// What a photo dragged out of the grid hands to another app: every pick in pick order when
    /// it is picked, else only itself. A GdkContentProvider of a GdkFileList (GTK offers it as
    /// text/uri-list and the portal's file transfer), owned by the caller.
    func dragContent(for id: Int64) -> UnsafeMutableRawPointer? {
        let ids = selection.number(of: id) != nil ? selection.picked : [id]
        return Self.fileListContent(filesForDrag(ids))
    }

    /// The files `ids` hand to another app (a drag): a photo on another machine as its local copy,
    /// left out until that is complete (a GFile of a location must not be made on the GTK
    /// thread, where gvfs's lookups may wait on a server). A drag cannot wait for a copy: what
    /// is left out is said. (A photo on a network file system not copied yet goes as its path,
    /// which the other app reads through the mount.)
    func filesForDrag(_ ids: [Int64]) -> [FilePath] {
        let resolved = controller.assets(ids).map { (id: $0.id, file: controller.answerPath(of: $0) ?? $0.path) }
        let leftOut = Set(resolved.filter { $0.file.isLocationURI }.map(\.id))
        let files = resolved.filter { !$0.file.isLocationURI }.map(\.file)
        if !leftOut.isEmpty {
            let beingCopied = controller.picksBeingFetched.filter(leftOut.contains).count
            showToast(beingCopied > 0
                ? ni18n("Left out of the drag: {count} photo still being copied from another computer",
                        "Left out of the drag: {count} photos still being copied from another computer", beingCopied)
                : i18n("A photo on another computer can be dragged once it is picked and copied here"))
        }
        return files
    }

    static func fileListContent(_ paths: [FilePath]) -> UnsafeMutableRawPointer? {
        FileListContent.provider(paths).map { UnsafeMutableRawPointer($0) }
    }

    /// Picks the asset at `position` (unless it is) and confirms it: Enter in a single-choice picker.
    func choose(at position: Int) {
        guard let id = model.assetID(at: position), !(position == 0 && model.showsCamera) else {
            toggle(at: position)
            return
        }
        if selection.number(of: id) == nil { toggle(at: position) }
        if selection.picked == [id] { confirm() }
    }

    /// The grid position of the focused cell.
    var focusedPosition: Int? { photoGrid.focusedPosition }

    public func confirm() {
        guard selection.count > 0, !whenPicksFetched({ [weak self] in self?.confirm() }) else { return }
        // (A pick kept from last time on a disk not plugged in: its path would name no file.)
        if let away = selection.picked.lazy.compactMap({ self.controller.asset($0) })
            .first(where: { !self.controller.isRemote($0.path) && self.controller.isOffline($0.path) }) {
            report(i18n("{file} is on a disk that is not connected: connect it, or unpick it", ["file": away.displayName]), printing: false)
            return
        }
        do {
            confirmed(try controller.readAssets(selection.picked))
        } catch {
            // The picks stay: the person can try again, or cancel.
            DeveloperLog.say("cannot read the picked photos from the index: \(error)")
            report(i18n("The picked photos cannot be handed over: the photo index cannot be read"), printing: false)
        }
    }

    func updateConfirmButton() {
        let count = selection.count
        // Translators: the confirm button with the number of picks, "Add 3"; {label} is "Add" or
        // what a script asked for.
        var text = count > 0 ? i18n("{label} {count}", ["label": confirmLabel, "count": String(count)]) : confirmLabel
        if let maximum = selection.maximum, count >= maximum {
            text = i18n("{label} {count} of {maximum}", ["label": confirmLabel, "count": String(count), "maximum": String(maximum)])
        }
        if let fetching = fetchingLabel { text = fetching }
        gtk_button_set_label(confirmButton.cast(), text)
        gtk_widget_set_sensitive(confirmButton, count > 0 ? 1 : 0)
    }

    /// Videos show a film icon when no video thumbnailer is installed: the person is told once,
    /// with what to install.
    func noteNoVideoThumbnailer() {
        guard !toldNoVideoThumbnailer else { return }
        toldNoVideoThumbnailer = true
        report(i18n("Videos show a film icon: no video thumbnailer is installed (install ffmpegthumbnailer)"))
    }

    /// Says `text` to a screen reader, as news (Accessible.announce), near `widget` or the
    /// picker; kept in `said` for the tests in this process, and on standard error with
    /// PHOTOPICK_TRACE_SAID ("said Fetched 50 %") for those of a picker in another.
    func say(_ text: String, near widget: UnsafeMutablePointer<GtkWidget>? = nil) {
        if heldNews != nil {
            heldNews?.append(text)
            return
        }
        said.append(text)
        if Self.tracesSaid { DeveloperLog.say("said \(text)") }
        Accessible.announce(text, near: widget ?? self.widget)
    }

    private static let tracesSaid = getenv("PHOTOPICK_TRACE_SAID") != nil

    /// A problem the person could act on (a full disk, an index that could not be written, new
    /// files that will not show up): said once over the grid until dismissed, and on standard
    /// error for whoever started the picker from a terminal. Returns the toast (to dismiss it
    /// once the problem is gone).
    @discardableResult
    public func report(_ problem: String, printing: Bool = true) -> GObjectRef {
        reported.append(problem)
        if printing { DeveloperLog.say(problem.escapedForTerminal) }
        let toast = adw_toast_new(markupEscaped(problem))!
        adw_toast_set_timeout(toast, 0)
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        let kept = GObjectRef(toast, transfer: .none)
        adw_toast_overlay_add_toast(toasts.opaque, toast)
        return kept
    }

    /// A short message over the grid that goes by itself.
    /// `answering` a key or a click (why a pick was refused): shown at once, in front of a note
    /// that stays (a disk not connected), not queued behind it unseen.
    /// (Five seconds, GNOME's own: two were gone before a sentence was read.)
    func showToast(_ text: String, answering: Bool = false, seconds: guint = 5) {
        let toast = adw_toast_new(markupEscaped(text))!
        adw_toast_set_timeout(toast, seconds)
        if answering { adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH) }
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }
}
