// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import GTKSupport
import PhotoLibrary
import Thumbnails

/// What the benchmarks and tests count of a picker's work on the GTK thread. A picker counts
/// only when one is given to it (`Picker.metrics`, before its window is shown): production
/// code pays for no counters. PHOTOPICK_TRACE_STARTUP gives every picker one, for the trace's
/// "every bound cell has its thumbnail".
@MainActor
public final class PickerMetrics {
    /// Cells bound so far, and the time spent binding them.
    public private(set) var binds = 0
    public private(set) var bindTime = TimeSpent()
    /// The scroll handler's time (row batches, prefetch).
    public private(set) var scrollTime = TimeSpent()
    /// Badges whose number changed because the selection did.
    public private(set) var badgeUpdates = 0
    /// Bound cells still waiting for their first picture.
    public private(set) var cellsWaiting = 0

    /// Results delivered from the workers are timed too (MainLoopDispatcher).
    public init() {
        MainLoopDispatcher.shared.measuresTime = true
    }

    /// A picker's own time on the GTK thread so far: binding cells, scrolling, and the
    /// results of every picker's workers put into cells.
    public var timeSpent: TimeSpent {
        let delivered = MainLoopDispatcher.shared.timeSpent
        var total = bindTime
        total.wall += scrollTime.wall + delivered.wall
        total.cpu += scrollTime.cpu + delivered.cpu
        return total
    }

    func measureBind(_ body: () -> Void) {
        binds += 1
        bindTime.measure(body)
        // (Bound to a picture held in memory, the cell never waited.)
        if cellsWaiting == 0 { markEveryCellShown() }
    }

    func measureScroll(_ body: () -> Void) { scrollTime.measure(body) }

    func badgeUpdated() { badgeUpdates += 1 }

    func cellWaits(_ waits: Bool) {
        cellsWaiting += waits ? 1 : -1
        if waits { waitedSinceMark = true } else if cellsWaiting == 0 { markEveryCellShown() }
    }

    /// A cell waited since the trace last said every bound cell has its thumbnail (it is said
    /// once a wait is over, not at each bind of a scroll).
    private var waitedSinceMark = true

    private func markEveryCellShown() {
        guard waitedSinceMark else { return }
        waitedSinceMark = false
        StartupTrace.mark("every bound cell has its thumbnail")
    }
}
