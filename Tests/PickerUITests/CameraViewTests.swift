// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import CGtk
import Foundation
import GObjectSupport
import PhotoLibrary
import PickerModel
import TestSupport
import Thumbnails
import XCTest
@_spi(Testing) @testable import PickerUI

/// The camera in the window, with a fake camera: the first cell shows live frames, opens the
/// capture view, whose shutter saves a photo that is then first in the grid, picked and focused.
@MainActor
final class CameraViewTests: XCTestCase, @unchecked Sendable {
    nonisolated override class func setUp() {
        MainActor.assumeIsolated {
            super.setUp()
            _ = InProcessGTK.start()
        }
    }

    private func openPicker(camera fake: FakeCamera, devices: FakeDevices, maximum: Int? = nil, height: Int32 = 720)
        throws -> (Picker, UnsafeMutablePointer<GtkWidget>, URL) {
        try InProcessGTK.require()
        let root = TestSupport.temporaryDirectory("camera-window").appendingPathComponent("Pictures")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: root)
        let library = try PhotoLibrary(roots: [FilePath(root.path)],
                                       location: IndexLocation(databasePath: TestSupport.temporaryDirectory("camera-index").appendingPathComponent("index.sqlite").path))
        try library.scan()
        let cache = ThumbnailCache(root: FilePath(TestSupport.temporaryDirectory("camera-cache").path))
        let store = CameraStore(post: { MainLoopDispatcher.shared.post($0) }, listCameras: { devices.cameras }, makeSource: { _, _ in fake })
        let view = Picker.hosting(library: library, loader: ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, thumbnailers: [])),
                              maximum: maximum, camera: store, showsCameraAtStart: true)
        view.captureFolder = FilePath(root.appendingPathComponent("Camera").path)
        let window = gtk_window_new()!
        gtk_window_set_default_size(window.cast(), 960, height)
        gtk_window_set_child(window.cast(), view.widget)
        try view.showAlbums()
        gtk_window_present(window.cast())
        store.start(watchingDevices: false)
        InProcessGTK.pump(seconds: 1)
        return (view, window, root)
    }

    private func pump(until condition: () -> Bool, seconds: Double = 5) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while !condition() && monotonicSeconds() < deadline { InProcessGTK.pump(seconds: 0.05) }
        return condition()
    }

    private func cameraCell(_ view: Picker) -> GridCell? { view.cells.compactMap(\.cell).first { $0.isCamera } }

    nonisolated func testTheFirstCellIsTheLiveCamera() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let (view, window, _) = try openPicker(camera: fake, devices: FakeDevices([FakeDevices.webcam]))
            defer { view.loader.shutdown() }
            XCTAssertTrue(pump { (cameraCell(view)?.cameraFramesShown ?? 0) >= 5 }, "live frames in the first cell")
            XCTAssertEqual(cameraCell(view)?.position, 0)
            XCTAssertTrue(fake.isRunning)
            gtk_window_destroy(window.cast())
            XCTAssertTrue(pump { !fake.isRunning }, "the device is let go with the window")
        }
    }

    /// GtkGridView keeps cells bound far beyond the view: the camera stops when its cell is
    /// scrolled out of sight, and starts again when it comes back.
    nonisolated func testTheCameraStopsWhenScrolledOutOfSight() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let (view, window, _) = try openPicker(camera: fake, devices: FakeDevices([FakeDevices.webcam]), height: 400)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { fake.isRunning })
            let adjustment = try XCTUnwrap(view.verticalAdjustment)
            gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
            InProcessGTK.pump(seconds: 0.2)
            XCTAssertNotNil(cameraCell(view), "still bound (GTK keeps a band of cells)")
            XCTAssertTrue(pump { !fake.isRunning }, "let go once out of sight")
            gtk_adjustment_set_value(adjustment, 0)
            XCTAssertTrue(pump { fake.isRunning }, "back in sight, streaming again")
        }
    }

    nonisolated func testWithoutACameraThereIsNoCameraCell() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(camera: FakeCamera(), devices: FakeDevices([]))
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { !view.model.showsCamera })
            InProcessGTK.pump(seconds: 0.3)
            XCTAssertNil(cameraCell(view), "no dead placeholder")
            XCTAssertNotNil(view.model.assetID(at: 0), "the first cell is the newest photo")
        }
    }

    nonisolated func testAnUnpluggedCameraSaysSoInItsCell() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let devices = FakeDevices([FakeDevices.webcam])
            let (view, window, _) = try openPicker(camera: fake, devices: devices)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { (cameraCell(view)?.cameraFramesShown ?? 0) >= 2 })
            fake.fail(with: .unplugged("Fake Camera"))
            devices.cameras = []
            view.controller.camera?.lookAgain()
            XCTAssertTrue(pump { cameraCell(view)?.accessibleText.contains("Camera unplugged") == true }, cameraCell(view)?.accessibleText ?? "")
            XCTAssertFalse(cameraCell(view)?.showsPicture ?? true, "no frozen frame")
        }
    }

    nonisolated func testTheShutterSavesAPhotoThatIsFirstPickedAndFocused() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let (view, window, root) = try openPicker(camera: fake, devices: FakeDevices([FakeDevices.webcam]))
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { cameraCell(view) != nil })
            // Enter or a click on the camera cell opens the capture view.
            view.toggle(at: 0)
            XCTAssertTrue(view.captureView.isVisible)
            XCTAssertTrue(pump { view.captureView.framesShown >= 3 }, "the capture view is live")
            XCTAssertTrue(view.captureKey(UInt32(GDK_KEY_space), 0), "Space is the shutter")
            XCTAssertTrue(pump { view.selection.count == 1 }, "the photo is picked")
            let saved = try XCTUnwrap(view.lastCapture)
            XCTAssertTrue(saved.displayString.hasPrefix(root.appendingPathComponent("Camera/IMG_").path), saved.displayString)
            XCTAssertTrue(FileManager.default.fileExists(atPath: saved.displayString))
            let picked = try XCTUnwrap(view.selection.picked.first.flatMap { view.controller.asset($0) })
            XCTAssertEqual(picked.path, saved)
            XCTAssertEqual(view.model.assetID(at: 1), picked.id, "first in Recents, after the camera")
            XCTAssertFalse(view.captureView.isVisible, "back to the grid")
            XCTAssertTrue(pump { view.focusedPosition == 1 }, "the focus is on the new photo")
        }
    }

    nonisolated func testEscapeLeavesTheCaptureViewWithTheFocusOnTheCamera() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(camera: FakeCamera(), devices: FakeDevices([FakeDevices.webcam]))
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { cameraCell(view) != nil })
            view.toggle(at: 0)
            XCTAssertTrue(pump { view.captureView.framesShown >= 1 })
            XCTAssertTrue(view.captureKey(UInt32(GDK_KEY_Escape), 0))
            XCTAssertFalse(view.captureView.isVisible)
            XCTAssertEqual(view.focusedPosition, 0, "the focus is back on the camera cell")
            XCTAssertEqual(view.selection.count, 0)
        }
    }

    nonisolated func testAtTheMaximumACaptureIsSavedButNotPicked() throws {
        try MainActor.assumeIsolated {
            let (view, window, _) = try openPicker(camera: FakeCamera(), devices: FakeDevices([FakeDevices.webcam]), maximum: 1)
            defer { gtk_window_destroy(window.cast()); view.loader.shutdown() }
            XCTAssertTrue(pump { cameraCell(view) != nil })
            view.toggle(at: 3)
            XCTAssertEqual(view.selection.count, 1)
            let before = view.selection.picked
            view.toggle(at: 0)
            // Kept open a while (frames keep coming) before the shutter.
            XCTAssertTrue(pump { view.captureView.framesShown >= 40 })
            view.takePhoto()
            XCTAssertTrue(pump { view.notices.contains { $0.contains("not picked") } }, "\(view.notices)")
            XCTAssertFalse(view.reported.contains { $0.lowercased().contains("photo saved") }, "a notice, not a problem: \(view.reported)")
            XCTAssertEqual(view.selection.picked, before)
            XCTAssertNotNil(view.lastCapture)
        }
    }
}
