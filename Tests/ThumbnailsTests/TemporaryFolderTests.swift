// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import TestSupport
import XCTest
@testable import Thumbnails

/// A thumbnailer runs in a private temporary folder; a picker killed meanwhile leaves it behind,
/// and the next one clears such folders away (never one whose process still runs).
final class TemporaryFolderTests: XCTestCase {
    func testFoldersOfProcessesThatAreGoneAreRemovedAndOthersKept() throws {
        let base = TestSupport.temporaryDirectory("thumbnailer-tmp")
        func folder(_ name: String) throws -> URL {
            let url = base.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("png".utf8).write(to: url.appendingPathComponent("thumbnail.png"))
            return url
        }
        // A process id no process has (above the kernel's pid_max), the old unnamed form, ours.
        let gone = try folder("photopick-thumbnailer-2147483000-abcDEF")
        let old = try folder("photopick-thumbnailer-Q1w2E3")
        let ours = try folder("photopick-thumbnailer-\(getpid())-xyzXYZ")
        let unrelated = try folder("something-else")
        ExternalThumbnailer.removeAbandonedFolders(in: base.path)
        let fileManager = FileManager.default
        XCTAssertFalse(fileManager.fileExists(atPath: gone.path), "its process is gone")
        XCTAssertFalse(fileManager.fileExists(atPath: old.path), "left by a version that did not name its process")
        XCTAssertTrue(fileManager.fileExists(atPath: ours.path), "in use by a running process")
        XCTAssertTrue(fileManager.fileExists(atPath: unrelated.path), "not ours")
    }
}
