// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// The timeline along the grid's right edge (issue 41): a segment a month, its height its share
/// of the album, a year's label at its first month where there is room, a dot a month where
/// there is room, and a mark where the view is. Pressing or dragging lands on the month under
/// the pointer, exactly: the cells are uniform, so a month's first photo has a known row
/// (Picker+Timeline puts that row at the top). Every month is at least `minimumHeight` high
/// when the height allows, so a month of one photo among 30,000 can be reached.
///
/// The segments are worked out from the months alone (`layout`); what they mean for the grid is
/// the picker's. Immich's users report its scrubber lands months off: it sizes months by
/// estimated heights.
///
/// At rest it is a thin track with the mark, over the grid's edge as an overlay scrollbar is,
/// shown while the view moves and a second after (`revealForAMoment`), as GTK's is: always
/// shown, its coming a second after the album opened was a change of the screen a person
/// sees, and the settled first screen came a second later (bench/compare, issue 42). It opens
/// wider, on a backdrop, with the years and the months' dots, while the pointer is over it, a
/// drag goes on or it has the keyboard's focus. It lies over the grid and never takes its
/// width: a column of its own made the grid reflow as it came and went, and its labels could
/// not be read over photos.
///
/// To the keyboard and to a screen reader it is a vertical GtkScale over the drawing, one step a
/// month, named for the month it is on ("Timeline, March 2024"): GTK 4.8 exposes a GtkRange's
/// value over AT-SPI, and a custom widget with the scrollbar role none. The scale draws nothing
/// and takes no pointer (the drawing does); its focus is drawn as a ring round the track.
@MainActor
final class TimelineScrubber {
    /// The scrubber: the drawing with the scale over it.
    let widget: UnsafeMutablePointer<GtkWidget>
    let area: UnsafeMutablePointer<GtkWidget>
    /// The accessible, focusable face: its value is the run the mark is on.
    let range: UnsafeMutablePointer<GtkWidget>
    /// The months, newest first, each a run of the album's order.
    private(set) var runs: [PhotoLibrary.MonthRun] = []
    /// Each run's segment, top and height, for the widget's height.
    private(set) var segments: [(top: Double, height: Double)] = []
    /// The run the view shows at its top (the mark); the scale's value follows it.
    var mark: Int? {
        didSet {
            guard mark != oldValue else { return }
            redrawIfShown()
            followMark()
        }
    }
    /// The run under the pointer while it hovers or drags (drawn lighter); the picker shows its
    /// month beside the pointer.
    private(set) var hovered: Int?
    /// A press or a drag reached `run`; `final` when the button went up.
    var onJump: ((Int, _ final: Bool) -> Void)?
    /// The pointer is over `run` at `y` (nil: it left).
    var onHover: ((Int?, Double) -> Void)?
    /// The keys moved the scale to `run` (Up, Down, Page Up, Page Down, Home, End).
    var onStep: ((Int) -> Void)?
    /// The scale took or lost the keyboard's focus.
    var onFocus: ((Bool) -> Void)?
    /// Tab (true) or Shift+Tab (false) on the scale: whether the picker moved the focus on
    /// (GTK's own Tab otherwise).
    var onLeave: ((Bool) -> Bool)?
    /// The month a run is called by (the picker's words).
    var monthName: (PhotoLibrary.MonthRun) -> String = { "\($0.year)-\($0.month)" }
    /// Set while the scale follows the mark, so that it is not taken for a key; and while a
    /// key's step is taken.
    private var following = false, stepping = false

    /// Its width at rest (what the pointer can reach over the grid's edge), and open.
    static let restingWidth: Int32 = 14, width: Int32 = 52
    static let minimumHeight = 3.0
    private var dragStart = 0.0
    /// (The focus is kept from the focus controller's signals: at its "enter" GTK 4.8 does not
    /// yet say the scale has the focus, and the timeline stayed closed.)
    private var dragging = false, pointerInside = false, focused = false
    /// Open: wide, with the years.
    private(set) var isOpen = false {
        didSet {
            guard isOpen != oldValue else { return }
            gtk_widget_set_size_request(widget, isOpen ? Self.width : Self.restingWidth, -1)
            gtk_widget_queue_draw(area)
        }
    }

    /// Shown at rest, for a moment after the view moved.
    private var revealed = false {
        didSet { if revealed != oldValue { gtk_widget_queue_draw(area) } }
    }
    private let concealing = MainLoopSource()

    /// Drawn again only when it shows: at rest it draws nothing, and a redraw of the grid's
    /// edge beneath it changed a few pixels of a settled screen (by one level in 255).
    private func redrawIfShown() {
        if isOpen || revealed { gtk_widget_queue_draw(area) }
    }

    /// The view moved: the track and its mark show, and go a second after it stops.
    func revealForAMoment() {
        revealed = true
        concealing.schedule(after: 1000) { [weak self] in self?.revealed = false }
    }

    init() {
        widget = gtk_overlay_new()
        area = gtk_drawing_area_new()
        range = gtk_scale_new(GTK_ORIENTATION_VERTICAL, gtk_adjustment_new(0, 0, 1, 1, 12, 0))
        gtk_widget_set_size_request(widget, Self.restingWidth, -1)
        gtk_widget_set_halign(widget, GTK_ALIGN_END)
        gtk_widget_set_valign(widget, GTK_ALIGN_FILL)
        gtk_widget_set_margin_top(widget, 8)
        gtk_widget_set_margin_bottom(widget, 8)
        style(widget, "timeline")
        gtk_overlay_set_child(widget.opaque, area)
        gtk_scale_set_draw_value(range.cast(), 0)
        gtk_widget_set_can_target(range, 0)
        gtk_widget_set_focusable(range, 1)
        style(range, "timeline-range")
        gtk_overlay_add_overlay(widget.opaque, range)
        Signal.connect(range.raw, "value-changed") { [weak self] () -> Void in
            guard let self, !self.following, !self.stepping, !self.runs.isEmpty else { return }
            let run = min(max(0, Int(gtk_range_get_value(self.range.cast()).rounded())), self.runs.count - 1)
            guard run != self.mark else { return }
            // While the step is taken the scale is not set again: a GtkAdjustment's
            // "value-changed" does not recurse, GLib runs it again once it returns, and the
            // step was taken again and again.
            self.stepping = true
            self.onStep?(run)
            self.stepping = false
            self.mark = run
            self.followMark()
        }
        let focus = gtk_event_controller_focus_new()!
        Signal.connect(focus.raw, "enter") { [weak self] in
            guard let self else { return }
            self.focused = true
            self.openOrClose()
            gtk_widget_queue_draw(self.area)
            self.onFocus?(true)
        }
        Signal.connect(focus.raw, "leave") { [weak self] in
            guard let self else { return }
            self.focused = false
            self.openOrClose()
            gtk_widget_queue_draw(self.area)
            self.onFocus?(false)
        }
        gtk_widget_add_controller(range, focus)
        let keys = gtk_event_controller_key_new()!
        Signal.connect(keys.raw, "key-pressed", key: { [weak self] keyval, modifiers in
            guard let self else { return false }
            switch Int32(keyval) {
            case GDK_KEY_Tab, GDK_KEY_KP_Tab: return self.onLeave?(modifiers & GDK_SHIFT_MASK.rawValue == 0) ?? false
            case GDK_KEY_ISO_Left_Tab: return self.onLeave?(false) ?? false
            default: return false
            }
        })
        gtk_widget_add_controller(range, keys)
        gtk_drawing_area_set_draw_func(area.cast(), { area, cairo, width, height, data in
            guard let cairo, let data else { return }
            MainActor.assumeIsolated {
                Unmanaged<TimelineScrubber>.fromOpaque(data).takeUnretainedValue().draw(cairo, width: Double(width), height: Double(height))
            }
        }, Unmanaged.passRetained(self).toOpaque(), { data in
            guard let data else { return }
            Unmanaged<TimelineScrubber>.fromOpaque(data).release()
        })
        Signal.connect(area.raw, "resize", size: { [weak self] _, _ in self?.relayout() })

        let drag = gtk_gesture_drag_new()!
        Signal.connect(drag.raw, "drag-begin", point: { [weak self] _, y in
            guard let self else { return }
            self.dragStart = y
            self.dragging = true
            self.openOrClose()
            self.pointer(at: y, pressed: true, final: false)
        })
        Signal.connect(drag.raw, "drag-update", point: { [weak self] _, dy in
            guard let self else { return }
            self.pointer(at: self.dragStart + dy, pressed: true, final: false)
        })
        Signal.connect(drag.raw, "drag-end", point: { [weak self] _, dy in
            guard let self else { return }
            self.dragging = false
            self.pointer(at: self.dragStart + dy, pressed: true, final: true)
            self.openOrClose()
        })
        gtk_widget_add_controller(area, OpaquePointer(drag.raw))
        let motion = gtk_event_controller_motion_new()!
        Signal.connect(motion.raw, "motion", point: { [weak self] _, y in self?.pointer(at: y, pressed: false, final: false) })
        Signal.connect(motion.raw, "enter", point: { [weak self] _, y in
            guard let self else { return }
            self.pointerInside = true
            self.openOrClose()
            self.pointer(at: y, pressed: false, final: false)
        })
        Signal.connect(motion.raw, "leave") { [weak self] in
            guard let self else { return }
            self.pointerInside = false
            self.openOrClose()
            guard !self.dragging else { return }
            self.hovered = nil
            self.onHover?(nil, 0)
            gtk_widget_queue_draw(self.area)
        }
        gtk_widget_add_controller(area, motion)
    }

    private func openOrClose() {
        isOpen = pointerInside || dragging || focused
    }

    /// Shows `runs` (a new album, or the same one changed).
    func show(_ runs: [PhotoLibrary.MonthRun]) {
        guard runs != self.runs else { return }
        self.runs = runs
        // (Shown, with no months yet, from the album's first frame: nothing to step through.)
        gtk_widget_set_focusable(range, runs.isEmpty ? 0 : 1)
        hovered = nil
        following = true
        gtk_range_set_range(range.cast(), 0, Double(max(1, runs.count - 1)))
        following = false
        followMark()
        relayout()
    }

    /// The scale on the mark's run, named for its month.
    private func followMark() {
        guard let mark, runs.indices.contains(mark), !stepping else { return }
        following = true
        gtk_range_set_value(range.cast(), Double(mark))
        following = false
        photopick_accessible_set_label(range, i18n("Timeline, {month}", ["month": monthName(runs[mark])]))
    }

    /// Where the segment of `run` is, from the scrubber's top (the picker puts the month's name
    /// beside it).
    func middle(of run: Int) -> Double? {
        segments.indices.contains(run) ? segments[run].top + segments[run].height / 2 : nil
    }

    private func relayout() {
        segments = Self.layout(counts: runs.map(\.count), height: Double(gtk_widget_get_height(area)))
        redrawIfShown()
    }

    /// The segments of months of `counts` photos in `height`: each its share of what is left
    /// once every month has `minimumHeight` (when all fit; else each its share), top to bottom.
    static func layout(counts: [Int], height: Double, minimum: Double = minimumHeight) -> [(top: Double, height: Double)] {
        let total = Double(counts.reduce(0, +))
        guard total > 0, height > 0 else { return counts.map { _ in (0, 0) } }
        let floor = Double(counts.count) * minimum <= height ? minimum : 0
        let spare = height - floor * Double(counts.count)
        var top = 0.0
        return counts.map { count in
            let size = floor + spare * Double(count) / total
            defer { top += size }
            return (top, size)
        }
    }

    /// The run whose segment holds `y` (clamped to the first and last).
    func run(atY y: Double) -> Int? {
        guard !segments.isEmpty else { return nil }
        var low = 0, high = segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if segments[middle].top <= y { low = middle } else { high = middle - 1 }
        }
        return low
    }

    private func pointer(at y: Double, pressed: Bool, final: Bool) {
        guard let run = run(atY: y) else { return }
        if hovered != run {
            hovered = run
            gtk_widget_queue_draw(area)
        }
        onHover?(final ? nil : run, y)
        if pressed { onJump?(run, final) }
    }

    private func draw(_ cairo: OpaquePointer, width: Double, height: Double) {
        guard !segments.isEmpty, isOpen || revealed else { return }
        var colour = GdkRGBA()
        gtk_style_context_get_color(gtk_widget_get_style_context(area), &colour)
        let (red, green, blue) = (Double(colour.red), Double(colour.green), Double(colour.blue))
        let track = width - 7  // the track's left edge, 4 px wide, 3 px in from the right
        if isOpen {
            // A backdrop in the view's colour (the text's colour turned round), so that the years
            // read over any photo.
            let backdrop = 1 - (red + green + blue) / 3 > 0.5 ? 1.0 : 0.12
            cairo_set_source_rgba(cairo, backdrop, backdrop, backdrop, 0.92)
            roundedRectangle(cairo, 0, -4, width, height + 8, radius: 8)
            cairo_fill(cairo)
        }
        // The track.
        cairo_set_source_rgba(cairo, red, green, blue, isOpen ? 0.12 : 0.18)
        cairo_rectangle(cairo, track, 0, 4, height)
        cairo_fill(cairo)
        if isOpen {
            var lastLabel = -Double.infinity
            let layout = gtk_widget_create_pango_layout(area, nil)!
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            for (index, run) in runs.enumerated() {
                let segment = segments[index]
                // A year's label where its months begin (the newest first: its December, or the
                // newest month it has), 16 px below the last label at least.
                let yearBegins = index == 0 || runs[index - 1].year != run.year
                if yearBegins, segment.top - lastLabel >= 16 {
                    pango_layout_set_text(layout, String(run.year), -1)
                    var ink = PangoRectangle(), logical = PangoRectangle()
                    pango_layout_get_pixel_extents(layout, &ink, &logical)
                    cairo_set_source_rgba(cairo, red, green, blue, 0.8)
                    // (The last year's label inside the bottom edge.)
                    cairo_move_to(cairo, 4, min(segment.top, height - Double(logical.height)))
                    pango_cairo_show_layout(cairo, layout)
                    lastLabel = segment.top
                }
                // A dot a month where there is room.
                if segment.height >= 6 {
                    cairo_set_source_rgba(cairo, red, green, blue, 0.4)
                    cairo_arc(cairo, track - 5, segment.top + segment.height / 2, 1.5, 0, 2 * .pi)
                    cairo_fill(cairo)
                }
            }
            if let hovered, segments.indices.contains(hovered) {
                cairo_set_source_rgba(cairo, red, green, blue, 0.35)
                cairo_rectangle(cairo, track - 2, segments[hovered].top, 8, max(2, segments[hovered].height))
                cairo_fill(cairo)
            }
        }
        if let mark, segments.indices.contains(mark) {
            cairo_set_source_rgba(cairo, 0.21, 0.52, 0.89, 1)  // the accent blue
            roundedRectangle(cairo, track - 2, segments[mark].top, 8, max(6, segments[mark].height), radius: 3)
            cairo_fill(cairo)
        }
        // The keyboard's focus: a ring round the whole, in the accent blue (the scale over it
        // draws nothing).
        if gtk_widget_has_visible_focus(range) != 0 {
            cairo_set_source_rgba(cairo, 0.21, 0.52, 0.89, 0.8)
            cairo_set_line_width(cairo, 2)
            roundedRectangle(cairo, 1, -3, width - 2, height + 6, radius: 8)
            cairo_stroke(cairo)
        }
    }

    private func roundedRectangle(_ cairo: OpaquePointer, _ x: Double, _ y: Double, _ width: Double, _ height: Double, radius: Double) {
        let r = min(radius, width / 2, height / 2)
        cairo_new_sub_path(cairo)
        cairo_arc(cairo, x + width - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cairo, x + width - r, y + height - r, r, 0, .pi / 2)
        cairo_arc(cairo, x + r, y + height - r, r, .pi / 2, .pi)
        cairo_arc(cairo, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cairo)
    }
}
