import CGLib
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// The grid's model: exact items-changed ranges and items that exist only while held.
final class AssetListModelTests: XCTestCase {
    /// Records items-changed emissions of a GListModel.
    final class Recorder {
        var emissions: [[Int]] = []
    }

    private func record(_ model: AssetListModel) -> Recorder {
        let recorder = Recorder()
        let thunk: @convention(c) (UnsafeMutableRawPointer?, guint, guint, guint, UnsafeMutableRawPointer?) -> Void = { _, position, removed, added, data in
            Unmanaged<Recorder>.fromOpaque(data!).takeUnretainedValue().emissions.append([Int(position), Int(removed), Int(added)])
        }
        g_signal_connect_data(UnsafeMutableRawPointer(model.object), "items-changed", unsafeBitCast(thunk, to: GCallback.self),
                              Unmanaged.passRetained(recorder).toOpaque(), { data, _ in Unmanaged<Recorder>.fromOpaque(data!).release() },
                              GConnectFlags(rawValue: 0))
        return recorder
    }

    private func result(_ ids: [Int64]) -> FetchResult {
        FetchResult(album: .smart(.recents), ids: ids)
    }

    func testSwitchingAlbumsIsOneItemsChangedAfterTheCameraSlot() {
        let model = AssetListModel(showsCamera: true)
        let recorder = record(model)
        model.replace(with: result([5, 4, 3]))
        model.replace(with: result([9, 8]))
        XCTAssertEqual(recorder.emissions, [[1, 0, 3], [1, 3, 2]])
        XCTAssertEqual(g_list_model_get_n_items(model.listModel), 3)
        XCTAssertTrue(AssetItem.isCamera(g_list_model_get_item(model.listModel, 0)), "the camera slot is first")
    }

    func testALibraryChangeArrivesAsExactRanges() throws {
        let model = AssetListModel(showsCamera: true)
        let before = result([5, 4, 3, 2, 1])
        model.replace(with: before)
        let recorder = record(model)
        var change = LibraryChange()
        change.inserted = [9]
        change.removed = [3]
        let details = try XCTUnwrap(FetchResultChangeDetails(testBefore: before, after: result([9, 5, 4, 2, 1]), change: change))
        model.apply(details)
        // Removal of old position 2 (grid 3), then insertion at 0 (grid 1): never a reset.
        XCTAssertEqual(recorder.emissions, [[3, 1, 0], [1, 0, 1]])
        XCTAssertEqual(model.assetID(at: 1), 9)
        XCTAssertEqual(model.assetID(at: 4), 2)
    }

    func testItemsExistOnlyWhileHeld() {
        let model = AssetListModel(showsCamera: false)
        model.replace(with: result(Array(Int64(1)...Int64(60_000)).reversed()))
        let baseline = AssetItem.aliveCount
        var held: [UnsafeMutableRawPointer] = []
        for position in stride(from: 0, to: 60_000, by: 600) {
            held.append(g_list_model_get_item(model.listModel, guint(position))!)
        }
        XCTAssertEqual(AssetItem.aliveCount - baseline, 100)
        XCTAssertEqual(AssetItem.assetID(of: held[1]), 60_000 - 600)
        for item in held { g_object_unref(item) }
        XCTAssertEqual(AssetItem.aliveCount, baseline, "nothing keeps items alive")
        XCTAssertEqual(g_list_model_get_n_items(model.listModel), 60_000)
    }
}
