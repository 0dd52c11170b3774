// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
@_spi(Testing) @testable import PickerUI

/// Where the in-process tests find cells on the screen: what a person sees at the top of the
/// grid, and where a photo's cell is.
@MainActor
extension Picker {
    /// The asset whose cell is the first at least half in view, and that cell's top edge.
    func topAssetInSight() -> (id: Int64, y: Double)? {
        var best: (position: Int, id: Int64, y: Double)?
        for cell in cells.compactMap(\.cell) {
            guard let position = cell.position, let id = cell.assetID, gtk_widget_get_mapped(cell.root) != 0 else { continue }
            var x = 0.0, y = 0.0
            guard gtk_widget_translate_coordinates(cell.root, scroller, 0, 0, &x, &y) != 0,
                  y + Double(gtk_widget_get_height(cell.root)) / 2 >= 0 else { continue }
            if best == nil || position < best!.position { best = (position, id, y) }
        }
        return best.map { ($0.id, $0.y) }
    }

    /// Where the cell of `id` is (its top edge), if it is bound and in view.
    func placeInSight(of id: Int64) -> Double? {
        for cell in cells.compactMap(\.cell) where cell.assetID == id && gtk_widget_get_mapped(cell.root) != 0 {
            var x = 0.0, y = 0.0
            if gtk_widget_translate_coordinates(cell.root, scroller, 0, 0, &x, &y) != 0 { return y }
        }
        return nil
    }
}
