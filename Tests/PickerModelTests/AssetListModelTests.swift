// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import Foundation
import GObjectSupport
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// The grid's model: exact items-changed ranges and items that exist only while held.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class AssetListModelTests: XCTestCase, @unchecked Sendable {
    /// Records items-changed emissions of a GListModel.
    final class Recorder {
        var emissions: [[Int]] = []
        /// What the model showed during each emission, read back as GTK does.
        var shown: [[Int64]] = []
        var model: OpaquePointer?
    }

    private func record(_ model: AssetListModel) -> Recorder {
        let recorder = Recorder()
        recorder.model = model.listModel
        // The handler holds the recorder until the model's object is finalized.
        Signal.connect(UnsafeMutableRawPointer(model.object), "items-changed", itemsChanged: { position, removed, added in
            recorder.emissions.append([position, removed, added])
            var ids: [Int64] = []
            for index in 0..<g_list_model_get_n_items(recorder.model) {
                let item = g_list_model_get_item(recorder.model, index)
                ids.append(AssetItem.assetID(of: item) ?? 0)
                g_object_unref(item)
            }
            recorder.shown.append(ids)
        })
        return recorder
    }

    private func result(_ ids: [Int64]) -> FetchResult {
        FetchResult(album: .smart(.recents), ids: ids)
    }

    nonisolated func testSwitchingAlbumsIsOneItemsChangedAfterTheCameraSlot() {
        MainActor.assumeIsolated {
            let model = AssetListModel(showsCamera: true)
            let recorder = record(model)
            model.replace(with: result([5, 4, 3]))
            model.replace(with: result([9, 8]))
            XCTAssertEqual(recorder.emissions, [[1, 0, 3], [1, 3, 2]])
            XCTAssertEqual(g_list_model_get_n_items(model.listModel), 3)
            XCTAssertTrue(AssetItem.isCamera(g_list_model_get_item(model.listModel, 0)), "the camera slot is first")
        }
    }

    /// The ids of a range of grid positions (the rows read ahead of the cells GTK binds next) are
    /// those of each position: the camera slot and what lies beyond the album left out.
    nonisolated func testARangeOfPositionsHoldsEachPositionsAsset() {
        MainActor.assumeIsolated {
            for camera in [true, false] {
                let model = AssetListModel(showsCamera: camera)
                XCTAssertEqual(model.assetIDs(in: 0..<10), [], "an empty album")
                model.replace(with: result([50, 40, 30, 20, 10]))
                for range in [0..<0, 0..<1, 0..<3, 1..<4, 2..<9, 4..<6, 5..<6, 6..<20] {
                    XCTAssertEqual(model.assetIDs(in: range), range.compactMap { model.assetID(at: $0) }, "\(range), camera \(camera)")
                }
                XCTAssertEqual(model.assetIDs(in: 0..<100), [50, 40, 30, 20, 10])
            }
        }
    }

    nonisolated func testALibraryChangeArrivesAsExactRanges() throws {
        try MainActor.assumeIsolated {
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
    }

    nonisolated func testDuringEachEmissionTheModelShowsThatEmissionsResult() throws {
        try MainActor.assumeIsolated {
            let model = AssetListModel(showsCamera: false)
            let before = result([9, 8, 7, 6, 5, 4, 3, 2, 1])
            model.replace(with: before)
            let recorder = record(model)
            var change = LibraryChange()
            change.removed = [8, 4]
            change.inserted = [20, 15]
            let after = result([20, 9, 7, 6, 15, 5, 3, 2, 1])
            model.apply(try XCTUnwrap(FetchResultChangeDetails(testBefore: before, after: after, change: change)))
            // Each emission applied to the previous list gives exactly what the model showed then.
            var list: [Int64] = [9, 8, 7, 6, 5, 4, 3, 2, 1]
            for (emission, shown) in zip(recorder.emissions, recorder.shown) {
                let (position, removed, added) = (emission[0], emission[1], emission[2])
                list.replaceSubrange(position..<(position + removed), with: shown[position..<(position + added)])
                XCTAssertEqual(list, shown, "after \(emission)")
            }
            XCTAssertEqual(list, [20, 9, 7, 6, 15, 5, 3, 2, 1])
            XCTAssertEqual(recorder.emissions.count, 4, "two removals and two insertions, each exact")
        }
    }

    /// A row read again in place (a heart, a duration) must not rebind its cell: no items-changed,
    /// only the ids, for the bound cells to update themselves. Moves and insertions still go out.
    nonisolated func testAssetsChangedInPlaceEmitNothingAndAreNamed() throws {
        try MainActor.assumeIsolated {
            let model = AssetListModel(showsCamera: true)
            let before = result([5, 4, 3, 2, 1])
            model.replace(with: before)
            let recorder = record(model)
            var updatedIDs: [Set<Int64>] = []
            var heard: Set<Int64> = []
            // Bound cells of 5, 4 and 2: each hears of its own row only.
            let subscriptions = [Int64(5), 4, 2].map { id in model.observeRow(id) { heard.insert(id) } }
            defer { withExtendedLifetime(subscriptions) {} }
            func took() { updatedIDs.append(heard); heard = [] }
            var change = LibraryChange()
            change.updated = [4, 2]
            model.apply(try XCTUnwrap(FetchResultChangeDetails(testBefore: before, after: result([5, 4, 3, 2, 1]), change: change)))
            took()
            XCTAssertEqual(recorder.emissions, [], "no cell is rebound for a row that changed in place")
            XCTAssertEqual(updatedIDs, [[4, 2]])

            change.inserted = [9]
            let after = result([9, 5, 4, 3, 2, 1])
            model.apply(try XCTUnwrap(FetchResultChangeDetails(testBefore: model.fetchResult!, after: after, change: change)))
            took()
            XCTAssertEqual(recorder.emissions, [[1, 0, 1]], "the insertion alone goes out")
            XCTAssertEqual(updatedIDs.last, [4, 2])
        }
    }

    nonisolated func testManyScatteredChangesGoOutAsOneRange() throws {
        try MainActor.assumeIsolated {
            let model = AssetListModel(showsCamera: true)
            let oldIDs = Array(stride(from: Int64(200), to: 0, by: -2))  // 200, 198 … 2
            let before = result(oldIDs)
            model.replace(with: before)
            let recorder = record(model)
            var change = LibraryChange()
            change.inserted = Set(stride(from: Int64(151), to: 50, by: -2))  // 50 odd ids between
            let newIDs = (oldIDs + Array(change.inserted)).sorted(by: >)
            model.apply(try XCTUnwrap(FetchResultChangeDetails(testBefore: before, after: result(newIDs), change: change)))
            XCTAssertEqual(recorder.emissions.count, 1)
            XCTAssertEqual(recorder.shown.last?.dropFirst().map { $0 }, newIDs)
        }
    }

    nonisolated func testItemsExistOnlyWhileHeld() {
        MainActor.assumeIsolated {
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
}
