// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// Files and folders the user running Photopick may not read. Root reads everything, so the
/// scan runs as an unprivileged user (setpriv) for this test.
final class UnreadableFilesTests: XCTestCase {
    func testUnreadableFilesAndFoldersAreListedWithTheirReason() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("needs root and setpriv to run the scan as another user")
        }
        let generated = GeneratedLibrary.shared
        // The unprivileged user must reach the library: add o+rx to the folders of this test run
        // that lead to it (never above them, never taking a bit away).
        var folder = generated.root
        while folder.path.hasPrefix(TestSupport.temporaryBase.path) {
            var info = stat()
            if stat(folder.path, &info) == 0 { chmod(folder.path, (info.st_mode & 0o7777) | 0o005) }
            folder = folder.deletingLastPathComponent()
        }
        let data = TestSupport.temporaryDirectory("nobody-data")
        chmod(data.path, 0o777)
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", TestSupport.photopick]
        let indexed = try TestSupport.run("/usr/bin/setpriv", asNobody + ["index", "--library", generated.root.path],
                                          environment: ["XDG_DATA_HOME": data.path, "HOME": data.path])
        XCTAssertEqual(indexed.status, 0, indexed.error)
        let errors = try TestSupport.run("/usr/bin/setpriv", asNobody + ["ls", "--errors", "--cached", "--library", generated.root.path],
                                         environment: ["XDG_DATA_HOME": data.path, "HOME": data.path])
        let text = String(decoding: errors.output, as: UTF8.self)
        for index in 0..<4 {
            XCTAssertTrue(text.contains("/Edge cases/unreadable/locked-\(index).jpg: cannot open: Permission denied\n"), text)
        }
        XCTAssertTrue(text.contains("/Edge cases/locked-dir/: cannot open folder: Permission denied\n"), text)
        let recents = try TestSupport.run("/usr/bin/setpriv", asNobody + ["ls", "--cached", "--library", generated.root.path],
                                          environment: ["XDG_DATA_HOME": data.path, "HOME": data.path])
        XCTAssertFalse(String(decoding: recents.output, as: UTF8.self).contains("locked-"), "unreadable files are not assets")
    }

    func testAFileThatVanishesBeforeItIsReadIsSkippedQuietly() {
        let gone = FilePath(TestSupport.temporaryDirectory("vanished").appendingPathComponent("gone.jpg").path)
        XCTAssertEqual(MetadataReader.read(path: gone, version: FileVersion(size: 10, modificationTimeNanoseconds: 0, inode: 1)), .vanished)
    }
}
