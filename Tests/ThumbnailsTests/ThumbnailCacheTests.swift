// SPDX-License-Identifier: GPL-3.0-or-later
import CGdkPixbuf
import Foundation
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// The disk cache follows the Thumbnail Managing Standard to the letter.
final class ThumbnailCacheTests: XCTestCase {
    private var cacheRoot: URL!
    private var cache: ThumbnailCache!

    override func setUp() {
        cacheRoot = TestSupport.temporaryDirectory("cache").appendingPathComponent("thumbnails")
        cache = ThumbnailCache(root: FilePath(cacheRoot.path))
    }

    private func image(_ name: String, size: String = "64x48", color: String = "red") throws -> URL {
        let url = TestSupport.temporaryDirectory("originals").appendingPathComponent(name)
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", size, "xc:\(color)", url.path]).status, 0)
        return url
    }

    func testNamesFollowTheSpecificationsExample() throws {
        XCTAssertEqual(try ThumbnailCache.uri(for: FilePath("/home/jens/photos/me.png")), "file:///home/jens/photos/me.png")
        XCTAssertEqual(ThumbnailCache.fileName(forURI: "file:///home/jens/photos/me.png"), "c6ee772d9e49320e97ec29a7eb5b1697.png")
    }

    func testURIsArePercentEncodedAsGLibDoes() throws {
        XCTAssertEqual(try ThumbnailCache.uri(for: FilePath("/tmp/Été 2019/a b#?.jpg")), "file:///tmp/%C3%89t%C3%A9%202019/a%20b%23%3F.jpg")
        XCTAssertEqual(try ThumbnailCache.uri(for: FilePath(bytes: Array("/tmp/latin1-".utf8) + [0xE9] + Array(".jpg".utf8))),
                       "file:///tmp/latin1-%E9.jpg")
    }

    func testFlavourIsTheSmallestAtLeastTheCellSize() {
        XCTAssertEqual(ThumbnailFlavor.smallest(atLeast: 100), .normal)
        XCTAssertEqual(ThumbnailFlavor.smallest(atLeast: 128), .normal)
        XCTAssertEqual(ThumbnailFlavor.smallest(atLeast: 129), .large)
        XCTAssertEqual(ThumbnailFlavor.smallest(atLeast: 160, scale: 2), .xLarge)
        XCTAssertEqual(ThumbnailFlavor.smallest(atLeast: 4000), .xxLarge)
    }

    func testAStoredThumbnailHasTheKeysModesAndIsValidOnlyForThatVersion() throws {
        let original = try image("photo.jpg", size: "600x300")
        let thumbnailer = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success(let made) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .large) else {
            return XCTFail("no thumbnail")
        }
        XCTAssertEqual(made.source, .decoded)
        XCTAssertEqual(made.pixbuf?.width, 256)
        XCTAssertEqual(made.pixbuf?.height, 128)

        let uri = "file://" + original.path
        let file = cacheRoot.appendingPathComponent("large/" + ThumbnailCache.fileName(forURI: uri))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path),
                       [file.lastPathComponent], "no temporary file is left behind")

        guard case .success(let stored) = Pixbuf.load(file.path) else { return XCTFail("unreadable thumbnail") }
        let info = try FileManager.default.attributesOfItem(atPath: original.path)
        let mtime = Int((info[.modificationDate] as! Date).timeIntervalSince1970)
        XCTAssertEqual(stored.option("tEXt::Thumb::URI"), uri)
        XCTAssertEqual(stored.option("tEXt::Thumb::MTime"), String(mtime))
        XCTAssertEqual(stored.option("tEXt::Thumb::Size"), String((info[.size] as! NSNumber).intValue))
        XCTAssertEqual(stored.option("tEXt::Thumb::Mimetype"), "image/jpeg")
        XCTAssertEqual(stored.option("tEXt::Thumb::Image::Width"), "600")
        XCTAssertTrue(stored.hasAlpha, "8-bit RGBA")

        // The same file version hits the disk cache (a new memory cache forces the disk path).
        let again = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success(let hit) = again.thumbnail(for: FilePath(original.path), flavor: .large) else { return XCTFail() }
        XCTAssertEqual(hit.source, .disk)
        XCTAssertEqual(again.decodes, 0)

        // A different mtime (even an older one) makes it stale.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: Double(mtime - 100))], ofItemAtPath: original.path)
        let stale = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success(let redone) = stale.thumbnail(for: FilePath(original.path), flavor: .large) else { return XCTFail() }
        XCTAssertEqual(redone.source, .decoded)
    }

    func testALargerFlavourServesASmallerCell() throws {
        let original = try image("big.png", size: "800x800")
        let thumbnailer = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        _ = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .xLarge)
        let fresh = Thumbnailer(cache: cache, memory: MemoryCache(), thumbnailers: [])
        guard case .success(let small) = fresh.thumbnail(for: FilePath(original.path), flavor: .normal) else { return XCTFail() }
        XCTAssertEqual(small.source, .disk)
        XCTAssertEqual(small.pixbuf?.width, 128)
        XCTAssertEqual(fresh.decodes, 0)
    }

    func testAnUnwritableCacheStillServesFromMemory() throws {
        let blocker = TestSupport.temporaryDirectory("blocked").appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let memory = MemoryCache()
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(blocker.appendingPathComponent("thumbnails").path)),
                                      memory: memory, thumbnailers: [])
        let original = try image("photo.png")
        guard case .success(let first) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .normal) else { return XCTFail() }
        XCTAssertEqual(first.source, .decoded)
        XCTAssertEqual(thumbnailer.failedStores, 1)
        guard case .success(let second) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .normal) else { return XCTFail() }
        XCTAssertEqual(second.source, .memory)
    }

    func testAFullCacheDiskLeavesNoPartialFile() throws {
        guard geteuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let mountPoint = TestSupport.temporaryDirectory("full-cache")
        guard try TestSupport.run("/bin/mount", ["-t", "tmpfs", "-o", "size=12k", "tmpfs", mountPoint.path]).status == 0 else {
            throw XCTSkip("cannot mount a tmpfs here")
        }
        // (Lazily: the thumbnailer may still hold a file there, and a busy tmpfs stayed mounted.)
        defer { _ = try? TestSupport.run("/bin/umount", ["-l", mountPoint.path]) }
        let root = mountPoint.appendingPathComponent("thumbnails")
        let thumbnailer = Thumbnailer(cache: ThumbnailCache(root: FilePath(root.path)), memory: MemoryCache(), thumbnailers: [])
        // Noise does not compress: a 1024 px thumbnail cannot fit in 12 KiB.
        let original = TestSupport.temporaryDirectory("noise").appendingPathComponent("noise.png")
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "1200x1200", "xc:", "+noise", "Random", original.path]).status, 0)
        guard case .success(let made) = thumbnailer.thumbnail(for: FilePath(original.path), flavor: .xxLarge) else { return XCTFail() }
        XCTAssertNotNil(made.pixbuf)
        XCTAssertEqual(thumbnailer.failedStores, 1)
        // (Partial files are NAME.png.photopick-XXXXXX; the folder fail/photopick-VERSION holds
        // this process's crash journal of in-process decodes, not a thumbnail.)
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".png") || $0.contains(".photopick-") }
        XCTAssertEqual(leftovers, [], "no partial file")
    }
}
