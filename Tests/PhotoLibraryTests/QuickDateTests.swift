// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The first pass dates JPEGs from their EXIF without exiv2; the full read must agree on every
/// date it gives, or photos would move after the first screen is shown.
final class QuickDateTests: XCTestCase {
    private func assertAgrees(under root: FilePath, minimumDated: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        var dated = 0, deferred = 0
        for path in Self.files(under: root) {
            guard let version = Self.version(of: path) else { continue }
            let quick = MetadataReader.readDate(path: path, version: version)
            guard case .media(let partial) = quick, partial.isPartial else { deferred += 1; continue }
            dated += 1
            guard case .media(let full) = MetadataReader.read(path: path, version: version) else {
                XCTFail("\(path): dated quickly, but the full read finds no media", file: file, line: line)
                continue
            }
            XCTAssertEqual(partial.captureDate, full.captureDate, "\(path)", file: file, line: line)
            XCTAssertEqual(partial.kind, full.kind, "\(path)", file: file, line: line)
            XCTAssertEqual(partial.mimeType, full.mimeType, "\(path)", file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(dated, minimumDated, "most JPEGs are dated from their EXIF (\(deferred) left to the full read)",
                                    file: file, line: line)
    }

    func testTheFullReadAgreesWithEveryQuickDateOfTheGeneratedLibrary() throws {
        let generated = GeneratedLibrary.shared
        let jpegs = generated.files.filter { ($0["path"] as? String)?.lowercased().hasSuffix(".jpg") == true }.count
        try assertAgrees(under: generated.rootPath, minimumDated: jpegs / 2)
    }

    func testTheFullReadAgreesOnTheWorkspaceLibraryWhenPresent() throws {
        let (tool, reason) = TestSupport.workspaceMakeLibrary
        guard let tool else { throw XCTSkip(reason) }
        let library = try GeneratedLibrary(count: 1500, generator: tool)
        try assertAgrees(under: library.rootPath, minimumDated: 300)
    }

    /// Dates the full reader would not believe, or would take from elsewhere, are left to it; a
    /// file with no metadata block exiv2 reads gets its file time, as the full reader gives it.
    func testImplausibleOrMissingDatesAreLeftToTheFullRead() throws {
        let folder = TestSupport.temporaryDirectory("quick-date")
        for (name, tags) in [("future.jpg", ["-DateTimeOriginal=2099:01:01 00:00:00"]),
                             ("none.jpg", [String]()),
                             ("xmp-only.jpg", ["-XMP-exif:DateTimeOriginal=2020:01:02 03:04:05"]),
                             ("iptc-only.jpg", ["-IPTC:DateCreated=2019:05:06"]),
                             ("offset.jpg", ["-DateTimeOriginal=2021:06:07 08:09:10", "-OffsetTimeOriginal=+05:30", "-SubSecTimeOriginal=25"]),
                             ("text.png", [String]()),
                             ("xmp.png", ["-XMP-exif:DateTimeOriginal=2020:01:02 03:04:05"]),
                             ("exif.png", ["-DateTimeOriginal=2020:01:02 03:04:05"]),
                             ("plain.gif", [String]()),
                             ("xmp.gif", ["-XMP-exif:DateTimeOriginal=2020:01:02 03:04:05"]),
                             ("plain.webp", [String]()),
                             ("exif.webp", ["-DateTimeOriginal=2020:01:02 03:04:05"]),
                             ("xmp.webp", ["-XMP-exif:DateTimeOriginal=2020:01:02 03:04:05"])] {
            let path = folder.appendingPathComponent(name).path
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "32x24", "xc:blue", path]).status, 0)
            if !tags.isEmpty { XCTAssertEqual(try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + tags + [path]).status, 0) }
        }
        // A PNG with no text chunk at all (ImageMagick writes its dates in tEXt chunks otherwise).
        let bare = folder.appendingPathComponent("bare.png").path
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "32x24", "xc:green", "-define", "png:exclude-chunks=date,time", "-strip", bare]).status, 0)
        func quick(_ name: String) -> MediaFile? {
            let path = FilePath(folder.appendingPathComponent(name).path)
            guard case .media(let media) = MetadataReader.readDate(path: path, version: Self.version(of: path)!) else { return nil }
            return media
        }
        XCTAssertEqual(quick("future.jpg")?.isPartial, false)
        XCTAssertEqual(quick("xmp-only.jpg")?.isPartial, false)
        XCTAssertEqual(quick("iptc-only.jpg")?.isPartial, false)
        XCTAssertEqual(quick("xmp.png")?.isPartial, false)
        XCTAssertEqual(quick("exif.png")?.isPartial, false)
        XCTAssertEqual(quick("exif.webp")?.isPartial, false)
        XCTAssertEqual(quick("xmp.webp")?.isPartial, false)
        // ImageMagick's "date:create" text, like GNOME's "Creation Time", is text exiv2 passes
        // over; it reads nothing but the size of a GIF, even one holding XMP.
        for name in ["none.jpg", "bare.png", "text.png", "plain.gif", "xmp.gif", "plain.webp"] {
            XCTAssertEqual(quick(name)?.isPartial, true, name)
            XCTAssertEqual(quick(name)?.captureDate.source, .fileModificationTime, name)
        }
        let offset = try XCTUnwrap(quick("offset.jpg"))
        XCTAssertTrue(offset.isPartial)
        XCTAssertEqual(offset.captureDate.utcOffsetMinutes, 330)
        try assertAgrees(under: FilePath(folder.path), minimumDated: 1)
    }

    /// Regular files below `root` (links and hidden names left out, as a scan does).
    private static func files(under root: FilePath) -> [FilePath] {
        var result: [FilePath] = []
        var stack = [root]
        while let folder = stack.popLast() {
            guard case .success(let listing) = DirectoryListing.list(folder) else { continue }
            for entry in listing.entries {
                switch entry.type {
                case .directory: stack.append(folder.appending(entry.name))
                case .file: result.append(folder.appending(entry.name))
                case .other, .unstattedFile: break
                }
            }
        }
        return result
    }

    private static func version(of path: FilePath) -> FileVersion? {
        var info = stat()
        guard path.withCString({ lstat($0, &info) }) == 0 else { return nil }
        return FileVersion(size: Int64(info.st_size), modificationTimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                           inode: UInt64(info.st_ino))
    }
}

/// The signatures and names recognised without GIO give GIO's own answers.
final class CommonContentTypeTests: XCTestCase {
    func testCommonSignaturesAndNamesMatchGIO() throws {
        var checked = 0
        for file in GeneratedLibrary.shared.files {
            let path = GeneratedLibrary.shared.path(of: file)
            guard let handle = FileHandle(forReadingAtPath: path.displayString) else { continue }
            let head = [UInt8](handle.readData(ofLength: 4096))
            try? handle.close()
            if let common = ContentType.commonType(content: head) {
                XCTAssertEqual(common, ContentType.gioGuess(content: head).mimeType, "\(path)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 500)
        // Videos by their first box or element, as phones and cameras write them; the brands that
        // share the box with other types are left to GIO.
        func box(_ brand: String) -> [UInt8] {
            [0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) + [0, 0, 2, 0] + Array("\(brand)mp41".utf8) + [0, 0, 0, 8] + Array("mdat".utf8)
        }
        func ebml(_ docType: String, versionFirst: Bool) -> [UInt8] {
            let version: [UInt8] = [0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01]
            let type: [UInt8] = [0x42, 0x82, 0x80 | UInt8(docType.utf8.count)] + Array(docType.utf8)
            let body = versionFirst ? version + type : type + version
            return [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(body.count)] + body + [0x18, 0x53, 0x80, 0x67, 0x01]
        }
        let videos: [(head: [UInt8], type: String?)] = [
            (box("isom"), "video/mp4"), (box("mp42"), "video/mp4"), (box("mp41"), "video/mp4"), (box("qt  "), "video/quicktime"),
            (box("heic"), nil), (box("avif"), nil), (box("3gp4"), nil), (box("M4A "), nil),
            (ebml("webm", versionFirst: true), "video/webm"), (ebml("webm", versionFirst: false), "video/webm"),
            (ebml("matroska", versionFirst: true), nil),
        ]
        for (head, type) in videos {
            let padded = head + [UInt8](repeating: 0, count: 256)
            XCTAssertEqual(ContentType.commonType(content: padded), type, "\(head.prefix(12))")
            if let type { XCTAssertEqual(ContentType.gioGuess(content: padded).mimeType, type, "\(head.prefix(12))") }
        }
        for name in ["a.jpg", "B.JPG", "c.jpeg", "d.JPE", "e.png", "f.Png", "g.gif", "h.webp", "i.WEBP", "photo.final.jpg"] {
            let gio = ContentType.gioGuess(fileName: Array(name.utf8))
            XCTAssertEqual(ContentType.commonType(fileName: Array(name.utf8)), gio.mimeType, name)
            XCTAssertFalse(gio.isUncertain, name)
        }
        for name in ["a.txt", "jpg", ".jpg", "b.jpgx", "c.heic", "d.mov"] {
            XCTAssertNil(ContentType.commonType(fileName: Array(name.utf8)), name)
        }
    }
}
