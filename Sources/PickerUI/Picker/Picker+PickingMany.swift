// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// Picking many at once (issue 41): a range with Shift (click or arrows), the whole album with
/// Ctrl+A, and Unpick All (Ctrl+Shift+A). Forty holiday photos were forty clicks.
extension Picker {
    /// Above this many, Ctrl+A asks first: a slip of the keys should not pick a whole library.
    static let pickAllWithoutAsking = 500

    /// Shift+click or Shift+arrow on `position`: the photos from the range's anchor (the photo
    /// last picked or unpicked by itself) to here, in the grid's order from the anchor on,
    /// after the picks there are. A range from the same anchor replaces the one before (Shift
    /// and the arrows widen and narrow it, as in Files). The maximum holds: what does not fit is
    /// said once. Without an anchor, `position` alone is picked and becomes one.
    func pickRange(to position: Int) {
        guard model.assetID(at: position) != nil else { return toggle(at: position) }
        guard let anchor = rangeAnchor, let from = currentPosition(of: anchor) else {
            toggle(at: position)
            return
        }
        rangeAnchor = (anchor.id, from)
        var ids = (min(from, position)...max(from, position)).compactMap { model.assetID(at: $0) }
        if position < from { ids.reverse() }
        let covered = Set(ids)
        let dropped = rangeAdded.filter { !covered.contains($0) }
        if !dropped.isEmpty { selection.remove(Set(dropped)) }
        rangeAdded.removeAll { !covered.contains($0) }
        // (The anchor itself stays as the person left it.)
        ids.removeAll { $0 == anchor.id && selection.number(of: $0) == nil }
        let outcome = pick(ids)
        rangeAdded += outcome.picked
    }

    /// Shift+arrow: GTK has moved the focus from `before`; the range goes to where it is now.
    /// With no anchor yet, the photo the focus left is one (and is picked).
    func extendRange(from before: Int) {
        guard let now = focusedPosition, now != before else { return }
        if rangeAnchor == nil || currentPosition(of: rangeAnchor!) == nil, let id = model.assetID(at: before) {
            rangeAnchor = (id, before)
            rangeAdded = []
            if selection.number(of: id) == nil, case .picked = selection.toggle(id) { rangeAdded = [id] }
        }
        pickRange(to: now)
    }

    /// Ctrl+A: every photo of the album, in its order, up to the maximum; above
    /// `pickAllWithoutAsking`, after a question.
    func pickAll() {
        guard controller != nil, !preview.isVisible, !captureView.isVisible else { return }
        let count = model.count - (model.showsCamera ? 1 : 0)
        guard count > 0 else { return }
        guard count > Self.pickAllWithoutAsking else { return pickAllNow() }
        askBeforePickingAll(count)
    }

    func pickAllNow() {
        let first = model.showsCamera ? 1 : 0
        let ids = (first..<model.count).compactMap { model.assetID(at: $0) }
        rangeAnchor = nil
        rangeAdded = []
        _ = pick(ids)
    }

    /// Ctrl+Shift+A or Unpick All: nothing picked, with a toast that puts them back.
    func unpickAll() {
        guard controller != nil, selection.count > 0 else { return }
        let was = selection.removeAll()
        rangeAnchor = nil
        rangeAdded = []
        let toast = adw_toast_new(markupEscaped(ni18n("{count} photo unpicked", "{count} photos unpicked", was.count)))!
        adw_toast_set_timeout(toast, 5)
        adw_toast_set_button_label(toast, i18n("_Undo"))
        Signal.connect(UnsafeMutableRawPointer(toast), "button-clicked") { [weak self] in
            guard let self, self.controller != nil else { return }
            _ = self.pick(was)
        }
        adw_toast_overlay_add_toast(toasts.opaque, toast)
    }

    /// Picks `ids` in their order and says once what could not be.
    @discardableResult
    func pick(_ ids: [Int64]) -> SelectionStore.ManyOutcome {
        var ids = ids
        var away = 0
        // (A photo on a disk that is not connected cannot be handed over: it is left.)
        if !controller.service.offlineRoots.isEmpty {
            let offline = Set(controller.assets(ids).filter { !controller.isRemote($0.path) && controller.isOffline($0.path) }.map(\.id))
            away = ids.filter { offline.contains($0) && selection.number(of: $0) == nil }.count
            ids.removeAll { offline.contains($0) }
        }
        var outcome = selection.add(ids)
        outcome.refused += away
        var news: String?
        if outcome.overMaximum > 0 {
            news = ni18n("{count} photo did not fit: you can pick up to {maximum}", "{count} photos did not fit: you can pick up to {maximum}",
                         outcome.overMaximum, ["maximum": Localization.number(selection.maximum ?? 0)])
            gtk_widget_error_bell(grid)
        } else if outcome.refused > 0 {
            news = ni18n("{count} photo cannot be picked and was left out", "{count} photos cannot be picked and were left out", outcome.refused)
        }
        if let news {
            showToast(news, answering: true)
            say(news)
        }
        return outcome
    }

    /// Where `anchor` is now: its position then if it is still there, else looked up.
    private func currentPosition(of anchor: (id: Int64, position: Int)) -> Int? {
        if model.assetID(at: anchor.position) == anchor.id { return anchor.position }
        return model.position(of: anchor.id)
    }

    private func askBeforePickingAll(_ count: Int) {
        guard pickAllQuestion == nil else { return }
        let root = gtk_widget_get_root(widget).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkWindow.self) }
        let album = controller.albums.first { $0.album == controller.currentAlbum }?.displayName ?? ""
        let question = adw_message_dialog_new(root, i18n("Pick All {count}?", ["count": Localization.number(count)]),
                                              i18n("Every photo and video in {album} is picked, in its order.", ["album": album]))!
        pickAllQuestion = GObjectRef(UnsafeMutableRawPointer(question), transfer: .none)
        let dialog = UnsafeMutableRawPointer(question).assumingMemoryBound(to: AdwMessageDialog.self)
        adw_message_dialog_add_response(dialog, "cancel", i18n("_Cancel"))
        adw_message_dialog_add_response(dialog, "pick", i18n("_Pick All"))
        adw_message_dialog_set_response_appearance(dialog, "pick", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(dialog, "pick")
        adw_message_dialog_set_close_response(dialog, "cancel")
        Signal.connect(UnsafeMutableRawPointer(question), "response", object: { [weak self] response in
            guard let self else { return }
            self.pickAllQuestion = nil
            if String(cString: response.assumingMemoryBound(to: CChar.self)) == "pick", self.controller != nil { self.pickAllNow() }
        })
        gtk_window_present(UnsafeMutableRawPointer(question).assumingMemoryBound(to: GtkWindow.self))
    }

    // MARK: What a screen reader is told

    /// The order changed: what a sighted person sees move (the numbers after an unpicked photo
    /// closing up, a pick moved in the strip) is said, as numbers on other cells are not read.
    func announceOrderChange() {
        let before = picksAnnounced, now = selection.picked
        picksAnnounced = now
        guard before != now, !before.isEmpty else { return }
        if now.count == before.count - 1, let gone = before.firstIndex(where: { !now.contains($0) }), gone < now.count {
            // One unpicked with picks after it: those close up.
            let text = now.count - gone == 1
                ? i18n("Pick {old} is now {new}", ["old": String(gone + 2), "new": String(gone + 1)])
                : i18n("Picks {old} to {oldLast} are now {new} to {newLast}",
                       ["old": String(gone + 2), "oldLast": String(before.count), "new": String(gone + 1), "newLast": String(now.count)])
            say(text)
        } else if now.count == before.count, Set(now) == Set(before),
                  let first = now.indices.first(where: { now[$0] != before[$0] }), let last = now.indices.last(where: { now[$0] != before[$0] }) {
            // One moved (a drag, Alt+arrows): from `first` to `last`, or back.
            let moved = before[first] == now[last] ? now[last] : now[first]
            guard let number = selection.number(of: moved) else { return }
            say(i18n("Moved to {number} of {count}", ["number": String(number), "count": String(now.count)]))
        }
    }
}

// MARK: Months

extension Picker {
    /// Ctrl+Down: the first photo of the next month (older), at the top of the view. Ctrl+Up:
    /// the first photo of this month, or of the one before when already there. The month is
    /// said to a screen reader.
    func jumpMonth(forward: Bool) {
        guard controller != nil, let current = focusedPosition else { return }
        let offset = model.showsCamera ? 1 : 0
        controller.months { [weak self] runs in
            guard let self, self.controller != nil else { return }
            let index = max(0, current - offset)
            guard let at = runs.lastIndex(where: { $0.start <= index }) else { return }
            let run: PhotoLibrary.MonthRun
            if forward {
                guard at + 1 < runs.count else { return gtk_widget_error_bell(self.grid) }
                run = runs[at + 1]
            } else if index > runs[at].start {
                run = runs[at]
            } else {
                guard at > 0 else { return gtk_widget_error_bell(self.grid) }
                run = runs[at - 1]
            }
            self.show(run)
        }
    }

    /// A month or a year typed in the album search: the open album's newest photo of it, or the
    /// nearest older one, at the top of the view with the focus.
    func goTo(_ destination: DateDestination) {
        guard controller != nil else { return }
        controller.months { [weak self] runs in
            guard let self, self.controller != nil else { return }
            let wanted = destination.year * 100 + (destination.month ?? 12)
            guard let run = runs.first(where: { $0.year * 100 + $0.month <= wanted }) ?? runs.last else { return }
            self.show(run)
        }
    }

    /// `run`'s first photo at the top of the view, with the focus; its month said.
    private func show(_ run: PhotoLibrary.MonthRun) {
        let offset = model.showsCamera ? 1 : 0
        guard let id = model.assetID(at: run.start + offset) else { return }
        photoGrid.showAtTop(position: run.start + offset)
        photoGrid.focusAsset(id)
        if let month = Localization.month(year: run.year, month: run.month) { say(month) }
    }
}
