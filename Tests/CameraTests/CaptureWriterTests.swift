// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import Foundation
import PhotoLibrary
import TestSupport
import XCTest

/// A capture on disk: a JPEG with the right EXIF, named by its time, never replacing a file.
final class CaptureWriterTests: XCTestCase {
    private func frame(width: Int = 32, height: Int = 24) -> Frame {
        let pixels = PixelBuffer(width: width, height: height)
        for index in 0..<pixels.count { pixels.bytes[index] = index % 3 == 0 ? 200 : 40 }
        return Frame(pixels: pixels, sequence: 1)
    }

    private func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    func testACaptureCarriesItsDateZoneDeviceAndOrientation() throws {
        let folder = TestSupport.temporaryDirectory("capture")
        let camera = folder.appendingPathComponent("Pictures/Camera")
        // 2026-05-04 13:02:01 UTC, taken in Berlin (summer time, +02:00).
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        defer { setenv("TZ", "UTC", 1); tzset() }
        let path = try CaptureWriter(make: "vivid", model: "Test Webcam").write(frame(), into: FilePath(camera.path), at: 1_777_899_721.25)
        XCTAssertEqual(path.displayString, camera.appendingPathComponent("IMG_20260504_150201.jpg").path)

        let exiftool = try TestSupport.run("/usr/bin/exiftool", ["-j", "-n", "-Make", "-Model", "-Orientation", "-DateTimeOriginal", "-SubSecTimeOriginal",
                                                                  "-OffsetTimeOriginal", "-ImageWidth", "-ImageHeight", "-Warning", path.displayString])
        XCTAssertEqual(exiftool.status, 0, exiftool.error)
        let tags = try XCTUnwrap((try JSONSerialization.jsonObject(with: exiftool.output) as? [[String: Any]])?.first)
        XCTAssertEqual(tags["Make"] as? String, "vivid")
        XCTAssertEqual(tags["Model"] as? String, "Test Webcam")
        XCTAssertEqual(tags["Orientation"] as? Int, 1)
        XCTAssertEqual(tags["DateTimeOriginal"] as? String, "2026:05:04 15:02:01")
        XCTAssertEqual(tags["OffsetTimeOriginal"] as? String, "+02:00")
        XCTAssertEqual("\(tags["SubSecTimeOriginal"] ?? "")", "250", "milliseconds keep two captures of one second in order")
        XCTAssertEqual(tags["ImageWidth"] as? Int, 32)
        XCTAssertEqual(tags["ImageHeight"] as? Int, 24)
        XCTAssertNil(tags["Warning"], "exiftool finds nothing wrong with the EXIF block")

        // Photopick's own index reads the capture as taken at that instant, by that camera.
        let listing = try TestSupport.run(TestSupport.photopick, ["ls", "--library", camera.path, "--json"],
                                          environment: ["XDG_DATA_HOME": folder.appendingPathComponent("data").path,
                                                        "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path])
        XCTAssertEqual(listing.status, 0, listing.error)
        let text = String(decoding: listing.output, as: UTF8.self)
        XCTAssertTrue(text.contains("2026-05-04T15:02:01.250+02:00"), text)
        XCTAssertTrue(text.contains("Test Webcam"), text)
    }

    func testASecondCaptureInTheSameSecondGetsASuffixAndNothingIsReplaced() throws {
        let folder = TestSupport.temporaryDirectory("capture-names")
        let writer = CaptureWriter(make: "vivid", model: "vivid")
        let when = 1_777_899_721.0
        // Someone's file already has the first name: it must survive untouched.
        let first = try writer.write(frame(), into: FilePath(folder.path), at: when)
        let existing = Data("not a photo of ours".utf8)
        try existing.write(to: URL(fileURLWithPath: first.displayString))
        let second = try writer.write(frame(), into: FilePath(folder.path), at: when)
        let third = try writer.write(frame(), into: FilePath(folder.path), at: when)
        XCTAssertEqual(second.displayString, first.displayString.replacingOccurrences(of: ".jpg", with: "_2.jpg"))
        XCTAssertEqual(third.displayString, first.displayString.replacingOccurrences(of: ".jpg", with: "_3.jpg"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first.displayString)), existing)
        XCTAssertEqual(files(in: folder).count, 3, "no temporary file is left: \(files(in: folder))")

        XCTAssertThrowsError(try writer.write(frame(), to: first, at: when), "an explicit output never replaces a file")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first.displayString)), existing)
        XCTAssertEqual(files(in: folder).count, 3)
    }

    func testAFolderThatCannotBeMadeSaysSo() throws {
        let folder = TestSupport.temporaryDirectory("capture-blocked")
        let blocker = folder.appendingPathComponent("Pictures")
        try Data("a file where the folder should be".utf8).write(to: blocker)
        XCTAssertThrowsError(try CaptureWriter(make: "a", model: "b").write(frame(), into: FilePath(blocker.appendingPathComponent("Camera").path))) { error in
            guard case CameraFailure.failed(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("Pictures"), message)
        }
    }
}
