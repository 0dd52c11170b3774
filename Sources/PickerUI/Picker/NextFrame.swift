// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport

/// Work that waits for a widget's window to draw its next frame, then runs in a turn of its own
/// right after it: a step of the picker's work kept out of the turn that draws the step before
/// (issue 38, point 6: the host's window misses a frame when a turn holds two steps). One wait
/// at a time: a new one replaces the one before.
@MainActor
final class NextFrame {
    private var afterPaint: (clock: GObjectRef, id: gulong)?
    private var mapped: (widget: UnsafeMutablePointer<GtkWidget>, id: gulong)?
    private let later = MainLoopSource()

    /// As `run(after:)`, for a widget in a window about to be shown: after that window's first
    /// frame, or after `limit` milliseconds if it is not shown by then.
    func runAfterItShows(_ widget: UnsafeMutablePointer<GtkWidget>, limit: guint = 1000, _ body: @escaping @MainActor () -> Void) {
        cancel()
        guard gtk_widget_get_mapped(widget) == 0 else {
            run(after: widget, body)
            return
        }
        // ("map" runs after GTK's own handler: the widget is mapped and has its frame clock.)
        mapped = (widget, Signal.connect(widget.raw, "map") { [weak self] in self?.run(after: widget, body) })
        later.schedule(after: limit, priority: G_PRIORITY_DEFAULT) { [weak self] in
            self?.cancel()
            body()
        }
    }

    /// Runs `body` right after `widget`'s window draws its next frame, or at once when the widget
    /// is not on screen; after 500 ms when no frame comes (a window minimized on Wayland).
    func run(after widget: UnsafeMutablePointer<GtkWidget>, _ body: @escaping @MainActor () -> Void) {
        cancel()
        guard gtk_widget_get_mapped(widget) != 0, let clock = gtk_widget_get_frame_clock(widget) else {
            body()
            return
        }
        let id = Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
            guard let self else { return }
            self.stopListening()
            // (Right after this paint, before the next frame's work.)
            self.later.schedule(priority: G_PRIORITY_DEFAULT) { body() }
        }
        afterPaint = (GObjectRef(clock, transfer: .none), id)
        gtk_widget_queue_draw(widget)
        later.schedule(after: 500, priority: G_PRIORITY_DEFAULT) { [weak self] in
            self?.stopListening()
            body()
        }
    }

    /// The waiting work will not run.
    func cancel() {
        later.cancel()
        stopListening()
    }

    private func stopListening() {
        if let (widget, id) = mapped {
            mapped = nil
            if g_signal_handler_is_connected(widget.raw, id) != 0 { g_signal_handler_disconnect(widget.raw, id) }
        }
        guard let (clock, id) = afterPaint else { return }
        afterPaint = nil
        if g_signal_handler_is_connected(clock.pointer, id) != 0 { g_signal_handler_disconnect(clock.pointer, id) }
    }
}
