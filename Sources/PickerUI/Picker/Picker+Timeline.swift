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
        timeline.monthName = { Localization.month(year: $0.year, month: $0.month) ?? "\($0.year)-\($0.month)" }
    }

    /// The open album's months again (it opened, or changed).
    func refreshTimeline() {
        guard controller != nil else { return }
        controller.months { [weak self] runs in
            guard let self else { return }
            self.timeline.show(runs)
            self.updateTimelineVisibility()
            self.updateTimelineMark()
        }
    }

    /// Shown for an album of two months or more that is more than two screens long; the plain
    /// scrollbar otherwise (the timeline takes its place). It has a column of its own beside the
    /// grid: its year labels over photos could not be read.
    func updateTimelineVisibility() {
        guard let grid = photoGrid, let adjustment = grid.verticalAdjustment else { return }
        let long = gtk_adjustment_get_upper(adjustment) > 2 * gtk_adjustment_get_page_size(adjustment)
        let shown = timeline.runs.count >= 2 && long
        gtk_widget_set_visible(timeline.widget, shown ? 1 : 0)
        gtk_widget_set_margin_end(grid.scroller, shown ? TimelineScrubber.width : 0)
        gtk_scrolled_window_set_policy(grid.scroller.opaque, GTK_POLICY_NEVER, shown ? GTK_POLICY_EXTERNAL : GTK_POLICY_AUTOMATIC)
    }

    /// The mark follows the view as it scrolls; the timeline shows once the album is long.
    func followTheView(of grid: PhotoGrid) {
        guard let adjustment = grid.verticalAdjustment else { return }
        Signal.connect(UnsafeMutableRawPointer(adjustment), "value-changed") { [weak self] in self?.updateTimelineMark() }
        Signal.connect(UnsafeMutableRawPointer(adjustment), "changed") { [weak self] () -> Void in
            self?.updateTimelineVisibility()
            self?.updateTimelineMark()
        }
    }

    func updateTimelineMark() {
        guard gtk_widget_get_visible(timeline.widget) != 0, let grid = photoGrid, let adjustment = grid.verticalAdjustment else { return }
        // (At the very top before the cells are placed: the first month.)
        guard let top = gtk_adjustment_get_value(adjustment) <= 0 ? 0 : grid.topPosition() else { return }
        // Where a jump left the view, the mark stays on the month jumped to: a row may hold the
        // end of the month before it too. (Within 40 px: GtkGridView settles its own anchor
        // after the jump and moves the view a little.)
        if let landed = timelineLanding, let value = grid.verticalAdjustment.map(gtk_adjustment_get_value), abs(value - landed) < 40 { return }
        timelineLanding = nil
        let index = max(0, top - (model.showsCamera ? 1 : 0))
        timeline.mark = timeline.runs.lastIndex { $0.start <= index }
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

    /// The keys moved the timeline: the view goes to the month, the focus stays on the timeline
    /// (Up and Down go on from there), and the month is said and shown beside it.
    private func stepTimeline(to index: Int) {
        jumpFromTimeline(to: index, final: false)
        guard timeline.runs.indices.contains(index) else { return }
        let run = timeline.runs[index]
        hoverTimeline(index, y: timeline.middle(of: index) ?? 0)
        if let month = Localization.month(year: run.year, month: run.month) { Accessible.announce(month, near: timeline.range) }
    }

    /// The month's first photo in the first row in sight; once the button is up, the focus
    /// there too and the month said.
    func jumpFromTimeline(to index: Int, final: Bool) {
        guard timeline.runs.indices.contains(index), let grid = photoGrid else { return }
        let run = timeline.runs[index]
        let position = run.start + (model.showsCamera ? 1 : 0)
        grid.showAtTop(position: position)
        timeline.mark = index
        timelineLanding = grid.verticalAdjustment.map(gtk_adjustment_get_value)
        guard final, let id = model.assetID(at: position) else { return }
        grid.focusAsset(id)
        if let month = Localization.month(year: run.year, month: run.month) { Accessible.announce(month, near: widget) }
    }
}
