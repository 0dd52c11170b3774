// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The window's first frame: its first screen's thumbnails, the cells made for it first.
extension PhotoGrid {
    /// Loads the first screen's thumbnails before the window first shows, waiting at most
    /// `timeout` seconds: when they are in the disk cache (a warm start), the cells find them in
    /// memory as they bind and the first frame holds every picture. `width` × `height` is the size
    /// the window will have.
    func preloadFirstScreen(width: Int, height: Int, timeout: Double = 0.1) {
        if expectedSize == nil { expectedSize = (width, height) }
        let assets = firstScreenAssets(width: width, height: height)
        guard !assets.isEmpty else { return }
        if StartupTrace.isOn {
            // (Those the start read while GTK started: FirstScreenHint.)
            let inMemory = assets.filter {
                loader.memoryHit($0.path, flavor: flavor, size: $0.version.size, modificationTimeNanoseconds: $0.version.modificationTimeNanoseconds) != nil
            }.count
            StartupTrace.mark("first screen: \(inMemory) of \(assets.count) thumbnails in memory already")
        }
        var pending = 0
        var requests: [ThumbnailRequest] = []
        for asset in assets {
            pending += 1
            requests.append(loader.request(asset.path, flavor: flavor, cellPixels: nil, size: asset.version.size) { result in
                // (A preview first and the thumbnail after would count twice: only the last counts.)
                if case .success(let thumbnail) = result, thumbnail.isPreliminary { return }
                pending -= 1
            })
        }
        let deadline = monotonicSeconds() + timeout
        while pending > 0 && monotonicSeconds() < deadline {
            if g_main_context_iteration(nil, 0) == 0 { usleep(500) }
        }
        // Those not done in time are made as their cells ask; these requests are dropped.
        requests.forEach { $0.cancel() }
    }

    /// The photos a window of `width` × `height` shows first (spare rows included).
    func firstScreenAssets(width: Int, height: Int) -> [Asset] {
        let ids = firstScreen(width: width, height: height).compactMap { model.assetID(at: $0) }
        return ids.isEmpty ? [] : controller.assets(ids)
    }

    /// A first run: every file is dated, and the album opens once the newest are read in full.
    /// The thumbnails of the screen it will open on are made meanwhile (top left first), so that
    /// they are in memory when its cells bind.
    func makeThumbnailsEarly(for newest: [FilePath]) {
        let span = max(shownCellSize, cellSize) + Style.cellGap
        // Before the window is laid out (it usually is not yet), the size it is about to have.
        let laidOut = gtk_widget_get_width(scroller) > 0
        let width = max(laidOut ? Int(gtk_widget_get_width(scroller)) : expectedSize?.width ?? 0, span)
        let height = max(laidOut ? Int(gtk_widget_get_height(scroller)) : expectedSize?.height ?? 0, span)
        let inSight = Array(newest.prefix(max(1, width / span) * (height / span + 1) - (model.showsCamera ? 1 : 0)))
        StartupTrace.mark("making \(inSight.count) thumbnails early")
        // (The cells' own requests join these jobs.) The grid is shown once they are all made, or
        // at the gate's deadline: one change from "Looking for Photos" to a screen of photos,
        // rather than a grey grid that fills cell by cell (a real photo takes a decode each).
        let gate = FirstScreenGate(waitingFor: inSight)
        firstScreenGate = gate
        for path in inSight {
            // A photo on another machine shows its embedded preview first, its download waiting
            // for one of two transfers: the preview counts. (300 real photos over SFTP: 41 of 42
            // previewed in 2 s, 32 in 0.6 s; the one without a preview waits for its download.)
            let remote = controller.isRemote(path)
            var counted = false
            // (With the cell's size, a remote photo's preview is looked for before any download,
            // and one without a preview is known to need its download first.)
            loader.request(path, flavor: flavor, cellPixels: remote ? cellPixels : nil) { [weak self, weak gate] result in
                if case .success(let thumbnail) = result, thumbnail.isPreliminary, !remote { return }
                guard !counted, let gate, gate.waiting > 0 else { return }
                counted = true
                gate.waitingFor.remove(path)
                if gate.waiting == 0 { self?.openFirstScreenGate() }
            }
        }
        loader.putFirst(inSight, flavor: flavor)
        // However long the decodes take, the photos show after this, grey cells or not.
        gate.deadline.schedule(after: FirstScreenGate.longestWait, priority: G_PRIORITY_DEFAULT) { [weak self] in self?.openFirstScreenGate() }
    }

    /// The grid named the cells in sight: a first screen waits for those only. Worked out before
    /// the grid was laid out, from the window's size (its header bar counted in), it may hold a
    /// row more, whose photos then wait off the screen: 300 real photos over SFTP, a photo without
    /// a preview in that row held the grid until its 2 s deadline in 3 runs of 5 beside a busy
    /// core (traced); in none of 5 since.
    func narrowFirstScreenGate(to paths: [FilePath]) {
        guard let gate = firstScreenGate, !paths.isEmpty else { return }
        let before = gate.waiting
        gate.waitingFor.formIntersection(paths)
        if gate.waiting == 0 && before > 0 { openFirstScreenGate() }
    }

    /// Whether a first run's grid waits, hidden, for its first screen's thumbnails.
    var firstScreenIsHeld: Bool { (firstScreenGate?.waiting ?? 0) > 0 }

    func openFirstScreenGate() {
        guard let gate = firstScreenGate else { return }
        StartupTrace.mark(gate.waiting == 0 ? "first screen's thumbnails made"
            : "first screen shown before its thumbnails (\(gate.waiting) left: \(gate.waitingFor.map(\.lastComponentName).sorted().joined(separator: ", ")))")
        gate.deadline.cancel()
        firstScreenGate = nil
        onFirstScreenShown?()
    }
}

/// A first run's first screen, waiting for its thumbnails before the grid shows.
@MainActor
final class FirstScreenGate {
    /// Milliseconds the grid may stay hidden after the dates are known (Nautilus on 660 real
    /// photos settles at 2.3-2.9 s; the first screen's decodes take about 1 s here).
    static let longestWait: guint = 2000
    /// The photos in sight whose pictures are not made yet (named by the startup trace).
    var waitingFor: Set<FilePath>
    var waiting: Int { waitingFor.count }
    let deadline = MainLoopSource()
    init(waitingFor: [FilePath]) { self.waitingFor = Set(waitingFor) }
}

extension PhotoGrid {
    /// The positions a window of `width` × `height` shows before it is scrolled, with rows to
    /// spare (the header takes less than a row; the grid may lay out fewer columns than fit).
    func firstScreen(width: Int, height: Int) -> Range<Int> {
        let offset = model.showsCamera ? 1 : 0
        return offset..<min(model.count, offset + firstScreenCells(width: width, height: height))
    }

    /// How many cells that first screen has (columns × rows, the spare rows included), or its
    /// first `rows` rows.
    func firstScreenCells(width: Int, height: Int, rows: Int? = nil) -> Int {
        let span = cellSize + Style.cellGap
        return max(1, width / span, Int(gtk_grid_view_get_max_columns(grid.opaque))) * (rows ?? height / span + 2)
    }

    /// Half the rows a grid of `height` shows (at least one).
    func halfTheRowsInSight(height: Int) -> Int { max(1, (height / (cellSize + Style.cellGap) + 1) / 2) }

    /// Until the window's first frame is drawn, the grid makes cells for the first screen only.
    /// GtkGridView otherwise makes and binds 30 rows of cells (210 in a 7-column window) before
    /// that frame, most of them below the window: 40-60 ms of a 0.3 s start. The rest come in
    /// after the first frame a row a frame (`letInNextRow`), or all at once after `timeout`
    /// milliseconds when no frame comes.
    ///
    /// `rows`: only so many rows in the first frame (a grid already on screen: the rest of the
    /// screen comes a row a frame after).
    func holdCellsBeyondFirstScreen(width: Int, height: Int, rows: Int? = nil, timeout: guint = 500) {
        expectedSize = (width, height)
        // Positions, not assets: the album is not open yet. The camera cell counts as one.
        let count = firstScreenCells(width: width, height: height, rows: rows) + 1
        StartupTrace.mark("grid: held to the first screen's \(count) cells")
        positionsPerFrame = nil
        gtk_slice_list_model_set_size(gridSlice, guint(count))
        if firstFrameTick != 0 { gtk_widget_remove_tick_callback(grid, firstFrameTick) }
        // A tick comes at the start of each frame: from the second one on, the first frame is drawn.
        firstFrameTick = gtk_widget_add_tick_callback(grid, { _, clock, data in
            let frame = gdk_frame_clock_get_frame_counter(clock)
            let box = Unmanaged<TickState>.fromOpaque(data!).takeUnretainedValue()
            guard let first = box.firstFrame else {
                box.firstFrame = frame
                return 1
            }
            guard frame > first else { return 1 }
            return MainActor.assumeIsolated { box.nextRow() } ? 1 : 0
        }, Unmanaged.passRetained(TickState { [weak self] in self?.letInNextRow() ?? false }).toOpaque(), { data in
            Unmanaged<TickState>.fromOpaque(data!).release()
        })
        firstScreenHoldEnd.schedule(after: timeout, priority: G_PRIORITY_DEFAULT) { [weak self] in self?.releaseCellsBeyondFirstScreen() }
    }

    /// One more row of cells into the grid, this frame; false once the whole album is in. A row
    /// a frame: all at once, the host's window (or the program's) froze for 180-200 ms while
    /// GtkGridView made and bound 200 cells below the screen (issue 38, point 6). Fewer while a
    /// row costs more than 3 ms: with a first run's scan on both cores a row of 7 cells was 13 ms
    /// of the frame's update and as much of its layout (the cells are below the screen: a part
    /// of a row moves nothing in sight). When the person scrolls to the end of what is in, the
    /// rest comes at once.
    private func letInNextRow() -> Bool {
        firstScreenHoldEnd.cancel()
        let size = Int(gtk_slice_list_model_get_size(gridSlice))
        guard size != Int(guint.max) else { return false }
        let columns = max(1, Int(gtk_grid_view_get_max_columns(grid.opaque)))
        var nearTheEnd = false
        if let adjustment = verticalAdjustment {
            let rowHeight = Double(cellSize + Style.cellGap)
            nearTheEnd = gtk_adjustment_get_value(adjustment) + gtk_adjustment_get_page_size(adjustment)
                >= gtk_adjustment_get_upper(adjustment) - 2 * rowHeight && gtk_adjustment_get_value(adjustment) > 0
        }
        // GtkGridView makes cells for about 30 rows around the view: once a row let in made no
        // cell, more cost nothing.
        let made = cells.count { $0.cell != nil }
        defer { cellsWhenRowLetIn = made }
        if nearTheEnd || made == cellsWhenRowLetIn {
            firstFrameTick = 0
            letInTheRest()
            return false
        }
        let step = min(columns, positionsPerFrame ?? columns)
        let started = g_get_monotonic_time()
        gtk_slice_list_model_set_size(gridSlice, guint(size + step))
        let spent = g_get_monotonic_time() - started
        if spent > 3000 {
            positionsPerFrame = max(1, step / 2)
        } else if spent < 1000 {
            positionsPerFrame = min(columns, step * 2)
        }
        return true
    }

    /// The whole album in the grid at once (where a position beyond the first screen is needed).
    func releaseCellsBeyondFirstScreen() {
        if firstFrameTick != 0 { gtk_widget_remove_tick_callback(grid, firstFrameTick) }
        firstFrameTick = 0
        letInTheRest()
    }

    private func letInTheRest() {
        firstScreenHoldEnd.cancel()
        cellsWhenRowLetIn = nil
        guard gtk_slice_list_model_get_size(gridSlice) != guint.max else { return }
        StartupTrace.mark("grid: the rest of the album let in")
        gtk_slice_list_model_set_size(gridSlice, guint.max)
    }
}

/// What the first frame's tick callback holds: whether it has seen a frame, and what to do after.
private final class TickState {
    var firstFrame: gint64?
    /// Lets in one more row; false when done.
    let nextRow: @MainActor () -> Bool
    init(nextRow: @escaping @MainActor () -> Bool) { self.nextRow = nextRow }
}
