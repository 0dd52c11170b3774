// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest
@testable import PickerModel

/// The camera as the picker sees it, with fake devices: when its cell shows, when it streams,
/// what an unplug does, and a capture that lands in the grid picked.
@MainActor
final class CameraStoreTests: XCTestCase, @unchecked Sendable {
    typealias MainQueue = PickerControllerTests.MainQueue

    private var queue: MainQueue!
    private var library: URL!

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            queue = MainQueue()
            library = TestSupport.temporaryDirectory("camera-library").appendingPathComponent("Pictures")
            try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/demo-library"), to: library)
        }
    }

    private func makeController(devices: FakeDevices, camera fake: FakeCamera, maximum: Int? = nil, slotAtStart: Bool = true,
                                alwaysShown: Bool = false) throws -> PickerController {
        let index = TestSupport.temporaryDirectory("camera-index").appendingPathComponent("index.sqlite")
        let photos = try PhotoLibrary(roots: [FilePath(library.path)], location: IndexLocation(databasePath: index.path))
        let store = CameraStore(alwaysShown: alwaysShown, post: { [queue] in queue!.post($0) }, listCameras: { devices.cameras }, makeSource: { _, _ in fake })
        let controller = PickerController(library: photos, maximum: maximum, camera: store, showsCameraAtStart: slotAtStart,
                                          post: { [queue] in queue!.post($0) })
        store.start(watchingDevices: false)
        return controller
    }

    nonisolated func testTheCellStreamsWhileViewedAndLetsTheDeviceGoAfter() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let controller = try makeController(devices: FakeDevices([FakeDevices.webcam]), camera: fake)
            defer { controller.close() }
            let camera = try XCTUnwrap(controller.camera)
            XCTAssertTrue(queue.run(until: { camera.status == .idle }), "\(camera.status)")
            XCTAssertTrue(controller.model.showsCamera)
            XCTAssertEqual(fake.startCount, 0, "nobody views the camera yet: it does not stream")
            var frames = 0
            let observation = camera.observe { if case .frame = $0 { frames += 1 } }
            let viewing = camera.beginViewing(.preview(width: 200, height: 200))
            XCTAssertTrue(queue.run(until: { frames >= 5 }))
            guard case .live = camera.status else { return XCTFail("\(camera.status)") }
            camera.endViewing(viewing)
            XCTAssertTrue(fake.isRunning, "kept a moment: GTK rebinds cells while scrolling")
            XCTAssertTrue(queue.run(until: { !fake.isRunning }, timeout: 5), "let go after the last viewer left")
            XCTAssertEqual(camera.status, .idle)
            observation.cancel()
        }
    }

    nonisolated func testAHiddenWindowDoesNotStream() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let controller = try makeController(devices: FakeDevices([FakeDevices.webcam]), camera: fake)
            defer { controller.close() }
            let camera = try XCTUnwrap(controller.camera)
            XCTAssertTrue(queue.run(until: { camera.status == .idle }))
            camera.setWindowShown(false)
            _ = camera.beginViewing(.preview(width: 100, height: 100))
            _ = queue.run(until: { false }, timeout: 0.3)
            XCTAssertEqual(fake.startCount, 0)
            camera.setWindowShown(true)
            XCTAssertTrue(queue.run(until: { fake.isRunning }))
        }
    }

    nonisolated func testWithNoCameraTheSlotGoes() throws {
        try MainActor.assumeIsolated {
            let controller = try makeController(devices: FakeDevices([]), camera: FakeCamera(), slotAtStart: true)
            defer { controller.close() }
            XCTAssertTrue(controller.model.showsCamera, "given its place at start (device nodes existed)")
            let camera = try XCTUnwrap(controller.camera)
            XCTAssertTrue(queue.run(until: { camera.status == .absent }))
            XCTAssertFalse(controller.model.showsCamera, "no dead placeholder")
        }
    }

    /// The setting that keeps the cell without a camera: it stays, saying there is none.
    nonisolated func testTheCellCanBeKeptWithoutACamera() throws {
        try MainActor.assumeIsolated {
            let controller = try makeController(devices: FakeDevices([]), camera: FakeCamera(), slotAtStart: true, alwaysShown: true)
            defer { controller.close() }
            let camera = try XCTUnwrap(controller.camera)
            XCTAssertTrue(queue.run(until: { camera.status == .absent }))
            XCTAssertTrue(controller.model.showsCamera)
        }
    }

    nonisolated func testAnUnplugShowsItsStateAndThePlugBackStreamsAgain() throws {
        try MainActor.assumeIsolated {
            let fake = FakeCamera()
            let devices = FakeDevices([])
            let controller = try makeController(devices: devices, camera: fake, slotAtStart: false)
            defer { controller.close() }
            let camera = try XCTUnwrap(controller.camera)
            XCTAssertTrue(queue.run(until: { camera.status == .absent }))
            XCTAssertFalse(controller.model.showsCamera)
            // Plugged in while the picker is open: the slot appears.
            devices.cameras = [FakeDevices.webcam]
            camera.lookAgain()
            XCTAssertTrue(queue.run(until: { controller.model.showsCamera }))
            _ = camera.beginViewing(.preview(width: 100, height: 100))
            XCTAssertTrue(queue.run(until: { if case .live = camera.status { return true }; return false }))
            // Pulled out: the stream fails, the device goes from the list; the cell says so.
            fake.fail(with: .unplugged("Fake Camera"))
            devices.cameras = []
            XCTAssertTrue(queue.run(until: { camera.status == .failed(.unplugged("Fake Camera")) }))
            camera.lookAgain()
            _ = queue.run(until: { false }, timeout: 0.2)
            XCTAssertEqual(camera.status, .failed(.unplugged("Fake Camera")))
            XCTAssertTrue(controller.model.showsCamera, "its cell stays, saying what happened")
            XCTAssertNil(camera.latestFrame, "no frozen frame")
            // Back in: streaming again, for the viewer still there.
            fake.heal()
            devices.cameras = [FakeDevices.webcam]
            camera.lookAgain()
            XCTAssertTrue(queue.run(until: { if case .live = camera.status { return true }; return false }))
        }
    }

    /// The shutter: the photo is saved in the capture folder, appears first in Recents and is
    /// picked; with the maximum reached it is saved, not picked, and the person is told.
    nonisolated func testACaptureAppearsFirstAndPicked() throws {
        try MainActor.assumeIsolated {
            for maximum in [nil, 0] as [Int?] {
                let fake = FakeCamera()
                let controller = try makeController(devices: FakeDevices([FakeDevices.webcam]), camera: fake, maximum: maximum)
                defer { controller.close() }
                var finished = false
                var problems: [String] = []
                var shown: Int64?
                var listening = true
                let observation = controller.observe { event in
                    switch event {
                    case .scanFinished: finished = true
                    case .problem(let words) where listening, .notice(let words) where listening: problems.append(words)
                    case .captureShown(let id): shown = id
                    default: break
                    }
                }
                defer { observation.cancel() }
                listening = false
                try controller.reloadAlbums()
                controller.startScan()
                XCTAssertTrue(queue.run(until: { finished }))
                listening = true
                let camera = try XCTUnwrap(controller.camera)
                _ = camera.beginViewing(.preview(width: 100, height: 100))
                XCTAssertTrue(queue.run(until: { camera.latestFrame != nil }))
                var saved: FilePath?
                camera.capture(into: FilePath(library.appendingPathComponent("Camera").path)) { result in
                    if case .success(let path) = result { saved = path } else { XCTFail("\(result)") }
                }
                XCTAssertTrue(queue.run(until: { saved != nil }))
                let path = try XCTUnwrap(saved)
                XCTAssertTrue(path.displayString.hasPrefix(library.appendingPathComponent("Camera/IMG_").path))
                controller.adoptCapture(path)
                XCTAssertTrue(queue.run(until: { shown != nil }), "the photo reaches the grid")
                let id = try XCTUnwrap(shown)
                let firstShown = controller.model.assetID(at: 1).flatMap { controller.asset($0) }
                XCTAssertEqual(firstShown?.id, id, "first in Recents, after the camera: \(String(describing: firstShown?.path)) \(String(describing: firstShown?.captureDate)) vs \(String(describing: controller.asset(id)?.captureDate))")
                if maximum == nil {
                    XCTAssertEqual(controller.selection.picked, [id])
                    XCTAssertEqual(problems, [])
                } else {
                    XCTAssertEqual(controller.selection.picked, [])
                    XCTAssertEqual(problems.count, 1)
                    XCTAssertTrue(problems.first?.contains("not picked") == true, "\(problems)")
                }
                try FileManager.default.removeItem(atPath: path.displayString)
            }
        }
    }
}
