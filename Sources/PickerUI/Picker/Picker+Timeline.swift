// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// The timeline (Grid/TimelineScrubber) over the grid's right edge: its months from the
/// controller, the month under the pointer beside it, a press or a drag landing on that month's
/// first photo at the top of the view, and the mark following the view.
extension Picker {
    func installTimeline() {
        gtk_overlay_add_overlay(overlay.opaque, timeline.widget)
        gtk_widget_set_visible(timeline.widget, 0)
        style(timelineLabel, "osd", "timeline-month")
        gtk_widget_set_halign(timelineLabel, GTK_ALIGN_END)
        gtk_widget_set_valign(timelineLabel, GTK_ALIGN_START)
        gtk_widget_set_can_target(timelineLabel, 0)
        gtk_widget_set_visible(timelineLabel, 0)
        gtk_overlay_add_overlay(overlay.opaque, timelineLabel)
        timeline.onHover = { [weak self] run, y in self?.hoverTimeline(run, y: y) }
        timeline.onJump = { [weak self] run, final in self?.jumpFromTimeline(to: run, final: final) }
        timeline.onStep = { [weak self] run in self?.stepTimeline(to: run) }
        timeline.onFocus = { [weak self] focused in
            guard let self else { return }
            self.hoverTimeline(focused ? self.timeline.mark : nil, y: self.timeline.mark.flatMap(self.timeline.middle(of:)) ?? 0)
        }
        timeline.onLeave = { [weak self] forward in self?.leaveTimeline(forward: forward) ?? false }
        timeline.monthName = { Localization.month(year: $0.year, month: $0.month) ?? "\($0.year)-\($0.month)" }
    }

    /// The open album's months again (it opened, or changed): a second after it opened, and
    /// changes a moment apart together. Reading them takes a worker a second at 1M photos
    /// (0.08 s at 60k): read at once, they held the first frame back by 40-65 % at 1M and
    /// 10 % at 60k (the picker benchmark, side by side). Ctrl+Up and the rest ask at once.
    func refreshTimeline(opened: Bool = false) {
        if opened {
            // (The last album's months go at once, and where it was landed on; this one's
            // months come in a second.)
            timeline.show([])
            timelineLanding = nil
            updateTimelineVisibility()
            timelineRefresh.schedule(after: 1000) { [weak self] in self?.readTimeline() }
        } else {
            timelineRefresh.scheduleUnlessPending(after: 300) { [weak self] in self?.readTimeline() }
        }
    }

    private func readTimeline() {
        guard controller != nil else { return }
        controller.months { [weak self] runs in
            guard let self else { return }
            self.timeline.show(runs)
            self.updateTimelineVisibility()
            self.updateTimelineMark()
        }
    }

    /// Shown for an album of two months or more that is more than two screens long; the plain
    /// scrollbar otherwise (the timeline takes its place, over the grid's edge as it does).
    func updateTimelineVisibility() {
        guard let grid = photoGrid, let adjustment = grid.verticalAdjustment else { return }
        let page = gtk_adjustment_get_page_size(adjustment)
        let screen = page > 0 ? page : Double(grid.expectedSize?.height ?? 0)
        let long = screen > 0 && grid.albumHeight > 2 * screen
        // In place from the album's first frame while its months are read (it draws nothing at
        // rest): the scrollbar's hidden indicator taken away, or the timeline put over the
        // grid's edge, a second later changed pixels of the settled first screen (issue 42).
        let dated = controller?.currentAlbum?.isInDateOrder ?? false
        let shown = long && (timeline.runs.count >= 2 || (dated && timeline.runs.isEmpty))
        gtk_widget_set_visible(timeline.widget, shown ? 1 : 0)
        gtk_scrolled_window_set_policy(grid.scroller.opaque, GTK_POLICY_NEVER, shown ? GTK_POLICY_EXTERNAL : GTK_POLICY_AUTOMATIC)
    }

    /// The mark follows the view as it scrolls; the timeline shows once the album is long.
    func followTheView(of grid: PhotoGrid) {
        guard let adjustment = grid.verticalAdjustment else { return }
        // (Once GTK has laid the grid out at the new value: at "value-changed" the cells are
        // still where they were, and the month read from them was the one scrolled away from.)
        Signal.connect(UnsafeMutableRawPointer(adjustment), "value-changed") { [weak self] () -> Void in
            self?.timeline.revealForAMoment()
            self?.markUpdate.scheduleUnlessPending { [weak self] in self?.updateTimelineMark() }
        }
        Signal.connect(UnsafeMutableRawPointer(adjustment), "changed") { [weak self] () -> Void in
            self?.updateTimelineVisibility()
            self?.updateTimelineMark()
        }
    }

    /// The mark, and the widget's `date`, follow the month of the first row in sight.
    func updateTimelineMark() {
        guard let grid = photoGrid, let adjustment = grid.verticalAdjustment, !timeline.runs.isEmpty else { return }
        let value = gtk_adjustment_get_value(adjustment)
        // Where a jump left the view, the month is the one jumped to: a row may hold the end of
        // the month before it too. (Within 40 px: GtkGridView settles its own anchor after the
        // jump and moves the view a little.) At the very top, before the cells are placed, the
        // first month.
        let top: Int
        if let landing = timelineLanding, abs(value - landing.value) < 40 {
            top = landing.position
        } else if value <= 0 {
            timelineLanding = nil
            top = 0
        } else {
            timelineLanding = nil
            guard let first = grid.topPosition() else { return }
            top = first
        }
        let index = max(0, top - (model.showsCamera ? 1 : 0))
        let run = timeline.runs.lastIndex { $0.start <= index }
        if gtk_widget_get_visible(timeline.widget) != 0 { timeline.mark = run }
        followDate(value <= 0 && timelineLanding == nil ? nil : run.map { timeline.runs[$0] })
    }

    private func hoverTimeline(_ run: Int?, y: Double) {
        guard let run, timeline.runs.indices.contains(run),
              let month = Localization.month(year: timeline.runs[run].year, month: timeline.runs[run].month) else {
            gtk_widget_set_visible(timelineLabel, 0)
            return
        }
        gtk_label_set_text(timelineLabel.opaque, month)
        gtk_widget_set_margin_end(timelineLabel, TimelineScrubber.width + 8)
        gtk_widget_set_margin_top(timelineLabel, Int32(max(0, y + 8 - 12)))
        gtk_widget_set_visible(timelineLabel, 1)
    }

    /// `position` in the first row, its month the mark's and the `date`'s: the row may hold the
    /// end of the month before too, so the view's top is not asked until it moves on.
    func land(at position: Int) {
        guard let grid = photoGrid else { return }
        grid.showAtTop(position: position)
        // (The months may not be read yet: the mark and the date follow when they are.)
        timelineLanding = grid.verticalAdjustment.map { (gtk_adjustment_get_value($0), position) }
        updateTimelineMark()
    }

    /// The keys moved the timeline: the view goes to the month, the focus stays on the timeline
    /// (Up and Down go on from there), and the month is said and shown beside it.
    private func stepTimeline(to index: Int) {
        jumpFromTimeline(to: index, final: false)
        guard timeline.runs.indices.contains(index) else { return }
        let run = timeline.runs[index]
        hoverTimeline(index, y: timeline.middle(of: index) ?? 0)
        if let month = Localization.month(year: run.year, month: run.month) { say(month, near: timeline.range) }
    }

    /// The month's first photo in the first row in sight; once the button is up, the focus
    /// there too and the month said.
    func jumpFromTimeline(to index: Int, final: Bool) {
        guard timeline.runs.indices.contains(index), let grid = photoGrid else { return }
        let run = timeline.runs[index]
        let position = run.start + (model.showsCamera ? 1 : 0)
        land(at: position)
        guard final, let id = model.assetID(at: position) else { return }
        grid.focusAsset(id)
        if let month = Localization.month(year: run.year, month: run.month) { say(month) }
    }
}

// MARK: The widget's `date`

extension Picker {
    /// The `date` property changed: a host asked for a year, a month or a day (or the top, with
    /// NULL). Its newest photo, or the newest before it, goes to the first row once the album
    /// is open; a text that is no date is said, and the property says where the view is again.
    func dateChanged() {
        guard !writingDate else { return }
        guard let text = stringProperty("date") else {
            dateWanted = nil
            if model.fetchResult != nil, let adjustment = photoGrid.verticalAdjustment { gtk_adjustment_set_value(adjustment, 0) }
            return
        }
        guard let end = CaptureDate.endOfPeriod(text) else {
            report(i18n("“{date}” is not a date: write YYYY, YYYY-MM or YYYY-MM-DD", ["date": text]))
            writeDate(dateShown)
            return
        }
        dateWanted = end
        goToWantedDate()
    }

    /// The date asked for, once the album is open (it may be asked before the picker is built);
    /// asked again when the album changed before the answer came (a scan).
    func goToWantedDate() {
        guard let end = dateWanted, controller != nil, model.fetchResult != nil else { return }
        controller.position(before: end) { [weak self] position in
            guard let self, self.dateWanted == end else { return }  // (a later ask wins)
            self.dateWanted = nil
            self.showAtTopOnceLaidOut(position + (self.model.showsCamera ? 1 : 0), attempts: 4)
        }
    }

    /// `position` in the first row. Before the grid has placed its cells (an album just opened)
    /// its row cannot be worked out: tried again after the next layouts.
    private func showAtTopOnceLaidOut(_ position: Int, attempts: Int) {
        land(at: position)
        guard attempts > 1 else { return }
        dateRetry.schedule(after: 100) { [weak self] in
            guard let self else { return }
            guard self.photoGrid.firstRowHolds(position) else { return self.showAtTopOnceLaidOut(position, attempts: attempts - 1) }
            // (There: where GTK's own scroll left the view is the landing.)
            self.timelineLanding = self.photoGrid.verticalAdjustment.map { (gtk_adjustment_get_value($0), position) }
            self.updateTimelineMark()
        }
    }

    /// The property says the month in sight ("2024-03"), or NULL at the top.
    func followDate(_ run: PhotoLibrary.MonthRun?) {
        let month = run.map { run in
            func digits(_ value: Int, _ count: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, count - text.count)) + text
            }
            return digits(run.year, 4) + "-" + digits(run.month, 2)
        }
        guard month != dateShown || stringProperty("date") != month else { return }
        dateShown = month
        // (Not while a date asked for is on its way: the view has not moved there yet.)
        if dateWanted == nil { writeDate(month) }
    }

    private func writeDate(_ date: String?) {
        writingDate = true
        setProperty("date", string: date)
        writingDate = false
    }
}
