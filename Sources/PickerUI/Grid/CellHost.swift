// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import PhotoLibrary
import PickerModel
import Thumbnails

/// What a grid cell asks of the picker it is in, and all it knows of it: the row of its asset,
/// the asset's place in the selection, its picture. The cell holds its host weakly (GTK may
/// keep a list item, and its cell, a moment longer than the picker) and follows its asset's
/// changes through the stores' subscriptions; gestures, drag and keys are the view's
/// (PhotoGrid+Cells), as in Nautilus' grid.
@MainActor
protocol CellHost: AnyObject {
    /// The asset's row, or why there is none.
    func row(_ id: Int64) -> RowLookup
    /// The asset's pick number and the number of picks, and their changes.
    func pickState(of id: Int64) -> SelectionStore.PickState
    func observePick(_ id: Int64, _ handler: @escaping (SelectionStore.PickState) -> Void) -> Subscription
    /// The copy being made of a pick on another machine (nil: none), and its changes.
    func fetchState(of id: Int64) -> FetchStore.State?
    func observeFetch(_ id: Int64, _ handler: @escaping (FetchStore.State?) -> Void) -> Subscription
    /// Calls `handler` when the asset's row changed in place (a heart, a duration read later).
    func observeRow(_ id: Int64, _ handler: @escaping () -> Void) -> Subscription
    /// Delivers the asset's picture for the cell's size: at once when it is in memory (and nil
    /// is returned), else later through the returned request, which the cell cancels.
    func picture(for asset: Asset, _ deliver: @escaping (CellPicture) -> Void) -> ThumbnailRequest?
    /// Whether the cell at `position` waits before asking for the asset's picture: it is bound
    /// far from the view (GtkGridView binds 30 rows around it) and the picture is not in memory.
    func defersPicture(of asset: Asset, at position: Int) -> Bool
    /// Whether the asset lives on another machine (the cell's cloud badge), and whether that
    /// machine does not answer now (the cell is dimmed, its badge says so).
    func isRemote(_ asset: Asset) -> Bool
    func isOffline(_ asset: Asset) -> Bool
    /// Why the asset cannot be picked, when its picture failed for a reason of the file.
    func problem(of id: Int64) -> CellProblem?
    /// The side a cell is asked to have, in points.
    var cellSide: Int { get }
    /// The live camera for the camera slot, and whether that slot is in sight.
    var camera: CameraStore? { get }
    var cameraSlotInView: Bool { get }
    /// The side of a cell as drawn, in device pixels (the camera's preview size).
    var cellPixels: Int { get }
    /// What the benchmarks and tests count, when they asked for it.
    var metrics: PickerMetrics? { get }
    /// The cell's toggle-pick action (a screen reader's DoAction): as a click.
    func toggle(at position: Int)
}

/// What a cell shows instead of an empty square.
enum CellPicture {
    case picture(Pixbuf)
    /// A video without a thumbnailer to make its picture: a film icon.
    case videoIcon
    /// The file itself is the problem (damaged, unreadable, too large): the words, and what the
    /// decoder said for the tooltip.
    case problem(CellProblem, detail: String)
    /// Nothing came that says anything about the file (cancelled, of the moment).
    case none
}
