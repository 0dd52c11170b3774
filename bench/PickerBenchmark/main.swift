// SPDX-License-Identifier: GPL-3.0-or-later
// Picker benchmark driver (see bench/picker-benchmark.py): opens the picker on an indexed
// library and reports, as one JSON line on standard output:
//   first-frame  when the first frame with pictures (not placeholders) in every visible cell
//                was painted (the driver measures from process start to this line);
//   scroll SECONDS SPEED  then scrolls at SPEED px/s and reports the gaps between frames and the
//                time our code took within each frame (median, p99, max): binding cells, the
//                scroll handler and results delivered from the workers, as wall time and as the
//                GTK thread's CPU time (wall time also counts waiting while other processes of
//                this shared machine had the cores).
//   months       when the timeline's months were known (seconds from the first frame), and the
//                months query of the open album on its own, five times: ids, then ids and months
//                (milliseconds, medians).
//   jump         after the first frame and the months, a press on the timeline's middle month:
//                the frames and milliseconds until a frame with that month's first photo in the
//                first row and every visible cell's picture.
// It does not rescan the library: the index is used as it is (synthetic rows stay).
import CGtk
import Glibc
import PhotoLibrary
@_spi(Testing) import PickerUI
import Thumbnails

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["first-frame", "scroll", "months", "jump"].contains(arguments[1]) else {
    let message = "usage: picker-benchmark first-frame|scroll|months|jump LIBRARY [SECONDS SPEED]\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
let mode = arguments[1]
let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 10 : 10
let speed = arguments.count > 4 ? Double(arguments[4]) ?? 3000 : 3000
guard gtk_init_check() != 0 else { exit(3) }
adw_init()  // (as the program's AdwApplication does)

let library = try PhotoLibrary(roots: [FilePath(arguments[2])])
let loader = ThumbnailLoader()
// The picker as a host has it: a PhotopickPicker (photopick_picker_new), over a controller that
// neither scans nor watches, so the synthetic rows stay.
photopick_shell_attach_linked()
let view = Picker.hosting(Picker.controller(library: library), loader: loader)
let picker = view.widget
// What the picker counts of its own work (binds, their time, cells waiting for a picture).
let metrics = PickerMetrics()
view.metrics = metrics
let window = gtk_window_new()!
gtk_window_set_default_size(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), 960, 720)
gtk_window_set_child(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), picker)
try view.showAlbums()
gtk_window_present(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self))

final class Measure {
    var ready = false
    var scrollStart = 0.0
    var lastPaint = 0.0
    var gaps: [Double] = []
    var ourTimes: [Double] = []
    var lastBindSeconds = 0.0
    var lastOur = TimeSpent()
    var ourWall: [Double] = []
    var ourCPU: [Double] = []
    var startValue = 0.0
    var framesAfterReady = 0
    var readyAt = 0.0
    var jumpedAt: Double?
    var framesSinceJump = 0
    var jumpTarget = 0
}
nonisolated(unsafe) let measure = Measure()

func printLine(_ text: String) {
    _ = (text + "\n").withCString { write(1, $0, strlen($0)) }
}

/// Our code's time on the GTK thread so far: binding cells, the scroll handler (row batches,
/// prefetch) and results delivered from the workers (thumbnails put into cells).
@MainActor func ourTime() -> TimeSpent { metrics.timeSpent }

/// {"median": …, "p99": …, "max": …} in milliseconds.
func distribution(_ values: [Double]) -> String {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return "{}" }
    func ms(_ value: Double) -> String { String(Double(Int(value * 100_000)) / 100) }
    let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    return "{\"median\": \(ms(sorted[sorted.count / 2])), \"p99\": \(ms(p99)), \"max\": \(ms(sorted.last!))}"
}

/// Called after each painted frame.
@MainActor func afterPaint() {
    let now = monotonicSeconds()
    let stats = (binds: metrics.binds, seconds: metrics.bindTime.wall)
    if !measure.ready {
        guard stats.binds > 0, metrics.cellsWaiting == 0 else { return }
        measure.ready = true
        if mode == "first-frame" {
            printLine("{\"first_frame\": true, \"binds\": \(stats.binds)}")
            exit(0)
        }
        measure.readyAt = now
        if mode == "months" || mode == "jump" { return }
        measure.scrollStart = now
        measure.lastPaint = now
        measure.lastBindSeconds = stats.seconds
        measure.lastOur = ourTime()
        measure.startValue = gtk_adjustment_get_value(view.verticalAdjustment)
        return
    }
    if mode == "months" || mode == "jump" { return afterPaintWithMonths(now) }
    measure.gaps.append(now - measure.lastPaint)
    measure.ourTimes.append(stats.seconds - measure.lastBindSeconds)
    measure.lastPaint = now
    measure.lastBindSeconds = stats.seconds
    let our = ourTime()
    measure.ourWall.append(our.wall - measure.lastOur.wall)
    measure.ourCPU.append(our.cpu - measure.lastOur.cpu)
    measure.lastOur = our
    let elapsed = now - measure.scrollStart
    let adjustment = view.verticalAdjustment!
    let end = gtk_adjustment_get_upper(adjustment) - gtk_adjustment_get_page_size(adjustment)
    if elapsed >= seconds || gtk_adjustment_get_value(adjustment) >= end {
        let sorted = measure.gaps.sorted()
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let scrolled = gtk_adjustment_get_value(adjustment) - measure.startValue
        printLine("{\"frames\": \(sorted.count), \"longest_gap_ms\": \(sorted.last! * 1000), \"p99_gap_ms\": \(p99 * 1000), "
                  + "\"median_gap_ms\": \(sorted[sorted.count / 2] * 1000), \"longest_our_time_in_a_frame_ms\": \((measure.ourTimes.max() ?? 0) * 1000), "
                  + "\"scrolled_px\": \(scrolled), \"binds\": \(stats.binds), "
                  + "\"our_wall_time_per_frame_ms\": \(distribution(measure.ourWall)), \"our_cpu_time_per_frame_ms\": \(distribution(measure.ourCPU))}")
        exit(0)
    }
    // Steady speed: the position follows the clock, not the frame count.
    gtk_adjustment_set_value(adjustment, measure.startValue + elapsed * speed)
}

/// The months modes, after the first frame: wait for the timeline's months, then report them
/// (months) or press the middle one and count frames until it is painted (jump).
@MainActor func afterPaintWithMonths(_ now: Double) {
    let months = view.timelineMonths
    guard !months.isEmpty else { return }
    if mode == "months" {
        let known = now - measure.readyAt
        var ids: [Double] = [], both: [Double] = []
        let album = Album.smart(.recents)
        for _ in 0..<5 {
            guard let result = try? library.fetchAssets(in: album) else { exit(4) }
            let start = monotonicSeconds()
            _ = result.allIDs
            ids.append(monotonicSeconds() - start)
            guard let again = try? library.fetchAssets(in: album) else { exit(4) }
            let middle = monotonicSeconds()
            _ = try? library.monthRuns(of: again)
            both.append(monotonicSeconds() - middle)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] * 1000 }
        printLine("{\"months\": \(months.count), \"known_after_first_frame_s\": \(known), \"ids_ms\": \(median(ids)), \"ids_and_months_ms\": \(median(both))}")
        exit(0)
    }
    guard let jumped = measure.jumpedAt else {
        measure.jumpTarget = months.count / 2
        measure.jumpedAt = monotonicSeconds()
        view.pressTimeline(at: measure.jumpTarget)
        return
    }
    measure.framesSinceJump += 1
    guard metrics.cellsWaiting == 0, view.firstRowHolds(month: measure.jumpTarget) else { return }
    printLine("{\"frames\": \(measure.framesSinceJump), \"ms\": \((now - jumped) * 1000), \"month\": \"\(months[measure.jumpTarget].year)-\(months[measure.jumpTarget].month)\"}")
    exit(0)
}

let clock = gtk_widget_get_frame_clock(window)!
let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _ in MainActor.assumeIsolated { afterPaint() } }
g_signal_connect_data(UnsafeMutableRawPointer(clock), "after-paint", unsafeBitCast(thunk, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
// Keep frames coming while scrolling (and while waiting for thumbnails).
gtk_widget_add_tick_callback(window, { _, _, _ in 1 }, nil, nil)
// Give up after a minute.
g_timeout_add_seconds(60, { _ in printLine("{\"timeout\": true}"); exit(1) }, nil)
while true { g_main_context_iteration(nil, 1) }
