// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest

/// Hotplug: a video node appearing or going away is told once per burst; other files are not.
final class DeviceWatcherTests: XCTestCase {
    final class Count: @unchecked Sendable {
        private let lock = Lock()
        private var value = 0
        func add() { lock.withLock { value += 1 } }
        var current: Int { lock.withLock { value } }
    }

    /// Made the way devtmpfs makes a node: created in place (FileManager writes aside and renames).
    private func make(_ url: URL) {
        close(creat(url.path, 0o600))
    }

    func testVideoNodesComingAndGoingAreTold() throws {
        let folder = TestSupport.temporaryDirectory("dev")
        let count = Count()
        let watcher = try XCTUnwrap(DeviceWatcher(folder: FilePath(folder.path)) { count.add() })
        defer { watcher.stop() }
        make(folder.appendingPathComponent("tty5"))
        usleep(600_000)
        XCTAssertEqual(count.current, 0, "not a camera")
        // A UVC camera adds two nodes at once: one word for both.
        make(folder.appendingPathComponent("video0"))
        make(folder.appendingPathComponent("video1"))
        usleep(800_000)
        XCTAssertEqual(count.current, 1)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("video0"))
        usleep(800_000)
        XCTAssertEqual(count.current, 2, "pulled out")
        watcher.stop()
        make(folder.appendingPathComponent("video2"))
        usleep(600_000)
        XCTAssertEqual(count.current, 2, "nothing after stop")
    }
}
