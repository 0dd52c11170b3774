// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest
@testable import PhotoLibrary

/// The metadata readers against files written by ImageMagick, exiftool and ffmpeg with known
/// orientation, dates, ratings, frame counts and durations.
final class RealToolReaderTests: XCTestCase {
    private var folder: URL!
    // Debian's ImageMagick; /usr/local/bin may hold a stand-in of the same name.
    private let convert = "/usr/bin/convert"

    override func setUpWithError() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        for tool in [convert, "/usr/bin/exiftool", "/usr/bin/ffmpeg"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
        }
        folder = TestSupport.temporaryDirectory("readers")
    }

    private func make(_ name: String, _ tool: String, _ arguments: [String]) throws -> FilePath {
        let path = folder.appendingPathComponent(name).path
        let result = try TestSupport.run(tool, arguments.map { $0.hasSuffix("OUT") ? $0.dropLast(3) + path : $0 })
        XCTAssertEqual(result.status, 0, result.error)
        return FilePath(path)
    }

    private func exiftool(_ path: FilePath, _ arguments: [String]) throws {
        let result = try TestSupport.run("/usr/bin/exiftool", ["-q", "-overwrite_original"] + arguments + [path.displayString])
        XCTAssertEqual(result.status, 0, result.error)
    }

    private func read(_ path: FilePath) throws -> MediaFile {
        var info = stat()
        XCTAssertEqual(path.withCString { stat($0, &info) }, 0)
        let version = FileVersion(size: Int64(info.st_size), modificationTimeNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000,
                                  inode: UInt64(info.st_ino))
        guard case .media(let media) = MetadataReader.read(path: path, version: version) else {
            XCTFail("\(path) was not read as media: \(MetadataReader.read(path: path, version: version))")
            throw XCTSkip("not media")
        }
        return media
    }

    func testJPEGOrientationDateOffsetCameraAndLens() throws {
        let path = try make("rotated.jpg", convert, ["-size", "64x32", "xc:red", "OUT"])
        try exiftool(path, ["-Orientation#=6", "-DateTimeOriginal=2021:03:04 05:06:07", "-OffsetTimeOriginal=+02:00",
                            "-SubSecTimeOriginal=5", "-Make=Google", "-Model=Pixel 6", "-LensModel=Pixel 6 front camera 2.51mm f/2.0"])
        let media = try read(path)
        XCTAssertEqual(media.mimeType, "image/jpeg")
        XCTAssertEqual(media.orientation, 6)
        XCTAssertEqual(media.width, 32, "displayed width is the stored height for orientation 6")
        XCTAssertEqual(media.height, 64)
        XCTAssertEqual(media.captureDate.iso8601, "2021-03-04T05:06:07.500+02:00")
        XCTAssertEqual(media.make, "Google")
        XCTAssertEqual(media.model, "Pixel 6")
        XCTAssertTrue(AlbumRules.traits(of: media, fileName: Array("rotated.jpg".utf8)).contains(.selfies))
    }

    func testEveryOrientationSwapsOnlyForTheTransposingOnes() throws {
        let path = try make("orient.jpg", convert, ["-size", "40x10", "xc:blue", "OUT"])
        for orientation in 1...8 {
            try exiftool(path, ["-Orientation#=\(orientation)"])
            let media = try read(path)
            XCTAssertEqual(media.orientation, orientation)
            XCTAssertEqual(media.width, orientation >= 5 ? 10 : 40, "orientation \(orientation)")
        }
    }

    func testXMPRatingFromPhotoManagersMakesAFavorite() throws {
        let jpeg = try make("rated.jpg", convert, ["-size", "16x16", "xc:green", "OUT"])
        try exiftool(jpeg, ["-XMP-xmp:Rating=4"])
        let media = try read(jpeg)
        XCTAssertEqual(media.rating, 4)
        XCTAssertTrue(AlbumRules.traits(of: media, fileName: Array("rated.jpg".utf8)).contains(.favorites))

        let png = try make("rated.png", convert, ["-size", "16x16", "xc:green", "OUT"])
        try exiftool(png, ["-XMP-xmp:Rating=5"])
        XCTAssertEqual(try read(png).rating, 5)

        let exifOnly = try make("exif-rated.jpg", convert, ["-size", "16x16", "xc:green", "OUT"])
        try exiftool(exifOnly, ["-IFD0:Rating=3"])
        XCTAssertFalse(AlbumRules.traits(of: try read(exifOnly), fileName: []).contains(.favorites))
    }

    func testAnimatedAndStillGIFs() throws {
        let animated = try make("anim.gif", convert, ["-delay", "10", "-size", "16x16", "xc:red", "xc:blue", "xc:green", "OUT"])
        let still = try make("still.gif", convert, ["-size", "16x16", "xc:red", "OUT"])
        XCTAssertEqual(try read(animated).frameCount, 2, "counting stops at two")
        XCTAssertEqual(try read(still).frameCount, 1)
        XCTAssertTrue(AlbumRules.traits(of: try read(animated), fileName: []).contains(.animated))
        XCTAssertFalse(AlbumRules.traits(of: try read(still), fileName: []).contains(.animated))
    }

    func testAnimatedPNG() throws {
        let apng = try make("anim.png", "/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                                           "testsrc=size=32x24:rate=5:duration=1", "-plays", "0", "-f", "apng", "OUT"])
        let media = try read(apng)
        XCTAssertEqual(media.width, 32)
        XCTAssertEqual(media.frameCount, 5)
        XCTAssertTrue(AlbumRules.traits(of: media, fileName: []).contains(.animated))
    }

    func testMP4DurationRotationAndCreationTimeWithMoovAtEitherEnd() throws {
        for flags in [[], ["-movflags", "+faststart"]] {
            let video = try make("clip\(flags.count).mp4", "/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=size=160x90:rate=10:duration=2.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-preset", "ultrafast",
                "-metadata", "creation_time=2020-05-06T07:08:09Z"] + flags + ["OUT"])
            // This ffmpeg ignores rotate metadata; exiftool writes the track's rotation matrix as phones do.
            try exiftool(video, ["-Rotation=90"])
            let media = try read(video)
            XCTAssertEqual(media.kind, .video)
            XCTAssertEqual(media.mimeType, "video/mp4")
            XCTAssertEqual(try XCTUnwrap(media.duration), 2.5, accuracy: 0.05)
            XCTAssertEqual(media.width, 90, "a 90° rotation matrix swaps the displayed size")
            XCTAssertEqual(media.height, 160)
            XCTAssertEqual(media.captureDate.iso8601, "2020-05-06T07:08:09+00:00")
        }
    }

    func testWebMDurationAndSize() throws {
        let video = try make("clip.webm", "/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
            "testsrc=size=128x96:rate=10:duration=1.5", "-c:v", "libvpx", "-b:v", "100k", "OUT"])
        let media = try read(video)
        XCTAssertEqual(media.mimeType, "video/webm")
        XCTAssertEqual(try XCTUnwrap(media.duration), 1.5, accuracy: 0.05)
        XCTAssertEqual(media.width, 128)
        XCTAssertEqual(media.height, 96)
    }

    /// Every video container GStreamer plays here is a video, Matroska and ASF among them (their
    /// bytes sniff as "Matroska stream" and "ASF video": .mkv and .wmv files were refused, and a
    /// script's `*.mkv` filter listed nothing: issue 19, defect 21).
    func testEveryVideoContainerGStreamerPlaysIsAVideo() throws {
        let source = ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=10:duration=1"]
        let made: [(String, [String], String)] = [
            ("clip.mkv", ["-c:v", "libx264"], "video/x-matroska"), ("clip.webm", ["-c:v", "libvpx"], "video/webm"),
            ("clip.mp4", [], "video/mp4"), ("clip.mov", [], "video/quicktime"), ("clip.avi", ["-c:v", "mpeg4"], "video/x-msvideo"),
            ("clip.mpg", ["-c:v", "mpeg2video"], "video/mpeg"), ("clip.ts", ["-c:v", "mpeg2video", "-f", "mpegts"], "video/mp2t"),
            ("clip.ogv", ["-c:v", "libtheora"], "video/x-theora+ogg"), ("clip.wmv", ["-c:v", "wmv2"], "video/x-ms-wmv"),
            ("clip.m4v", [], "video/mp4"),
        ]
        for (name, codec, mimeType) in made {
            let media = try read(try make(name, "/usr/bin/ffmpeg", source + codec + ["OUT"]))
            XCTAssertEqual(media.kind, .video, name)
            XCTAssertTrue(media.mimeType == mimeType || (name == "clip.m4v" && media.mimeType.hasPrefix("video/")), "\(name): \(media.mimeType)")
        }
        // A Matroska file whose name does not say (a download's) is a video too.
        let unnamed = try make("download", "/usr/bin/ffmpeg", source + ["-c:v", "libx264", "-f", "matroska", "OUT"])
        XCTAssertEqual(try read(unnamed).mimeType, "video/x-matroska")
        XCTAssertEqual(try read(try make("clip2.mkv", "/usr/bin/ffmpeg", source + ["-c:v", "libx264", "OUT"])).duration ?? 0, 1, accuracy: 0.05)
    }

    func testContentDecidesTheTypeNotTheName() throws {
        let png = try make("really-a-png.jpg", convert, ["-size", "8x8", "xc:red", "png:OUT"])
        XCTAssertEqual(try read(png).mimeType, "image/png")
        let text = folder.appendingPathComponent("notes.jpg")
        try Data("not a photo\n".utf8).write(to: text)
        guard case .failed(let reason) = MetadataReader.read(path: FilePath(text.path), version: FileVersion(size: 12, modificationTimeNanoseconds: 0, inode: 0)) else {
            return XCTFail("a text file named .jpg must be reported")
        }
        XCTAssertTrue(reason.contains("plain text"), reason)
        let sidecar = folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: sidecar)
        XCTAssertFalse(MetadataReader.mayBeMedia(fileName: Array("notes.txt".utf8)), "a .txt is never opened")
    }
}
