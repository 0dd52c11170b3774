// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

/// Widgets that have left their parent and are destroyed a little later, a few milliseconds of
/// them per main-loop turn, after the window's next frame: the turn that takes them out is often
/// a host's (its `gtk_box_remove` of the picker), and destroying the grid's 240 cells there held
/// the host's window 12-20 ms on top of GTK's own unmapping (issue 38, point 6).
///
/// A widget given here has stopped its work already (its timers, requests and subscriptions):
/// what is left is GTK's dispose of it and its children.
@MainActor
public enum LaterRelease {
    private static var held: [GObjectRef?] = []
    private static let turn = MainLoopSource()
    /// After the window's frame (GDK's redraw is HIGH_IDLE + 20), before the loop's idle work:
    /// at DEFAULT_IDLE a host busy with timeouts and events starved it, and a host that made and
    /// destroyed pickers quickly kept their trees for seconds (RSS up 10-30 MB in 200 cycles).
    private static let priority = G_PRIORITY_HIGH_IDLE + 30

    /// Keeps `widget` (unparented, or about to be) and lets it go in a later turn.
    public static func hold(_ widget: UnsafeMutablePointer<GtkWidget>) {
        held.append(GObjectRef(widget, transfer: .none))
        turn.scheduleUnlessPending(priority: priority) { releaseSome() }
    }

    /// About 4 ms of releasing per turn (a cell's dispose is about 50 µs), oldest first.
    private static func releaseSome() {
        let deadline = g_get_monotonic_time() + 4_000
        var released = 0
        while released < held.count, g_get_monotonic_time() < deadline {
            // Its last reference goes outside the array's access: its dispose may hand more
            // widgets here (appended, and released in a later turn).
            let widget = held[released]
            withExtendedLifetime(widget) { held[released] = nil }
            released += 1
        }
        held.removeFirst(released)
        if !held.isEmpty { turn.scheduleUnlessPending(priority: priority) { releaseSome() } }
    }
}
