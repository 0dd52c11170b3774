// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// Our cache and GNOME's thumbnail factory (GnomeDesktop through python3-gi) accept each
/// other's thumbnails: GNOME Files' thumbnails save us decodes, and ours save it work.
final class GnomeInteropTests: XCTestCase {
    private var cacheHome: URL!
    private var original: URL!

    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/GnomeDesktop-4.0.typelib")
                || FileManager.default.fileExists(atPath: "/usr/lib/girepository-1.0/GnomeDesktop-4.0.typelib") else {
            XCTFail("gir1.2-gnomedesktop-4.0 is missing: run scripts/bootstrap")
            return
        }
        cacheHome = TestSupport.temporaryDirectory("gnome-cache")
        original = TestSupport.temporaryDirectory("gnome-originals").appendingPathComponent("sunset photo.jpg")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "300x200", "gradient:orange-purple", original.path]).status, 0)
    }

    /// Runs GNOME's factory (Debian's python3 with python3-gi) against our cache folder.
    private func gnome(_ action: String) throws -> String {
        let script = """
        import gi, os, sys
        gi.require_version("GnomeDesktop", "4.0")
        from gi.repository import GnomeDesktop
        factory = GnomeDesktop.DesktopThumbnailFactory.new(GnomeDesktop.DesktopThumbnailSize.LARGE)
        path = sys.argv[2]
        uri = "file://" + __import__("urllib.parse").parse.quote(path)
        mtime = int(os.stat(path).st_mtime)
        if sys.argv[1] == "generate":
            pixbuf = factory.generate_thumbnail(uri, "image/jpeg", None)
            factory.save_thumbnail(pixbuf, uri, mtime, None)
        print(factory.lookup(uri, mtime) or "")
        """
        let result = try TestSupport.run("/usr/bin/python3", ["-c", script, action, original.path],
                                         environment: ["XDG_CACHE_HOME": cacheHome.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private var cache: ThumbnailCache { ThumbnailCache(root: FilePath(cacheHome.appendingPathComponent("thumbnails").path)) }

    func testGnomeAcceptsOurThumbnails() throws {
        XCTAssertEqual(try gnome("lookup"), "", "nothing cached yet")
        let thumbnailer = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .large) else { return XCTFail() }
        let uri = try ThumbnailCache.uri(for: FilePath(original.path))
        XCTAssertEqual(try gnome("lookup"), cacheHome.path + "/thumbnails/large/" + ThumbnailCache.fileName(forURI: uri))
    }

    func testWeUseGnomesThumbnails() throws {
        XCTAssertFalse(try gnome("generate").isEmpty)
        let thumbnailer = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success(let thumbnail) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .large) else { return XCTFail() }
        XCTAssertEqual(thumbnail.source, .disk)
        XCTAssertEqual(thumbnailer.decodes, 0)
        XCTAssertEqual(thumbnail.pixbuf?.width, 256)
    }
}
