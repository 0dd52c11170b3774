// SPDX-License-Identifier: GPL-3.0-or-later
import CGdkPixbuf
import CGLib
import Foundation
import TestSupport
import XCTest

/// The camera commands against a real V4L2 device: vivid, the kernel's virtual camera, in a small
/// VM (`../shared/tools/with-vivid`, or the program PHOTOPICK_WITH_VIVID names). Every check runs
/// in one guest boot (about 10-15 s under emulation); the assertions read what it left behind.
final class VividCameraTests: XCTestCase {
    /// What the guest run left, shared by the tests of this class (one boot for all).
    nonisolated(unsafe) private static var guest: (folder: URL, log: String)?
    nonisolated(unsafe) private static var skipReason: String?

    static var withVivid: (path: String?, reason: String) {
        if let path = ProcessInfo.processInfo.environment["PHOTOPICK_WITH_VIVID"] { return (path, "") }
        let path = TestSupport.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/tools/with-vivid").path
        if FileManager.default.isExecutableFile(atPath: path) { return (path, "") }
        return (nil, "no \(path) beside this checkout (and no PHOTOPICK_WITH_VIVID): these tests need a VM with a V4L2 camera")
    }

    /// The guest's script: each check writes its output into the shared folder.
    private static let script = #"""
    #!/bin/sh
    # Runs inside the VM, against vivid's /dev/video0.
    cd "$OUT"
    B="$PHOTOPICK"
    export HOME="$OUT/home" XDG_CONFIG_HOME="$OUT/home/.config"
    # A person's home exists (Photopick does not make a missing one: issue 20).
    mkdir -p "$HOME"
    "$B" cameras --json >cameras.json 2>cameras.err; echo $? >cameras.status
    "$B" cameras >cameras.txt 2>&1
    # No text overlay: the picture is only the colour bars.
    v4l2-ctl -d /dev/video0 -c osd_text_mode=2
    "$B" capture --output "$OUT/capture.jpg" >capture.out 2>capture.err; echo $? >capture.status
    "$B" capture >capture-default.out 2>&1; echo $? >capture-default.status
    "$B" capture --output "$OUT/capture.jpg" >capture-again.out 2>&1; echo $? >capture-again.status
    "$B" cameras --stream 4 >stream.out 2>stream.err; echo $? >stream.status
    # Another program streams: a capture says the camera is in use.
    "$B" cameras --stream 6 >busy-stream.out 2>&1 &
    sleep 2.5
    "$B" capture --output "$OUT/busy.jpg" >busy.out 2>busy.err; echo $? >busy.status
    wait
    # Every buffer dropped: the stream restarts once, then says the camera stopped.
    ( sleep 2; v4l2-ctl -d /dev/video0 -c percentage_of_dropped_buffers=100 ) &
    "$B" cameras --stream 12 >stall.out 2>stall.err; echo $? >stall.status
    wait
    v4l2-ctl -d /dev/video0 -c percentage_of_dropped_buffers=0
    # The picker's window on its own X server: the camera cell is live (two screenshots), its
    # click opens the capture view, Space takes a photo, Ctrl+Enter confirms it (picked).
    v4l2-ctl -d /dev/video0 -c horizontal_movement=5
    mkdir -p "$HOME/Pictures/Older"
    cp "$OUT/capture.jpg" "$HOME/Pictures/Older/older.jpg"
    touch -d 2020-01-01 "$HOME/Pictures/Older/older.jpg"
    Xvfb :5 -screen 0 1000x800x24 -nolisten tcp >xvfb.log 2>&1 & XVFB=$!
    sleep 1
    ( export DISPLAY=:5 DBUS_SESSION_BUS_ADDRESS=disabled: GSK_RENDERER=cairo GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 \
        XDG_DATA_HOME="$OUT/home/.local/share" XDG_CACHE_HOME="$OUT/home/.cache"
      "$B" >window.out 2>window.err & PICKER=$!
      W=
      for i in $(seq 1 180); do
        W=$(xdotool search --onlyvisible --name "Pick Photos" 2>/dev/null | tail -1); [ -n "$W" ] && break; sleep 0.5
      done
      echo "$W" >window.id
      sleep 8
      xdotool windowfocus --sync "$W"
      import -window root window-1.png
      sleep 1.5
      import -window root window-2.png
      xdotool mousemove 60 110 click 1
      sleep 4
      import -window root window-capture.png
      xdotool key space
      sleep 4
      xdotool key ctrl+Return
      for i in $(seq 1 40); do kill -0 $PICKER 2>/dev/null || break; sleep 0.5; done
      kill $PICKER 2>/dev/null
      wait $PICKER; echo $? >window.status )
    kill $XVFB
    # Unplugged while streaming (vivid's disconnect control), last: the device is gone after it.
    # The control is set once the stream has said it started (under emulation a program can take
    # seconds to start); what v4l2-ctl says is kept for the failure message.
    ( "$B" cameras --stream 30 >unplug.out 2>unplug.err; echo $? >unplug.status ) & STREAM=$!
    for i in $(seq 1 100); do grep -q streaming unplug.err 2>/dev/null && break; sleep 0.2; done
    sleep 1
    for i in 1 2 3; do
      v4l2-ctl -d /dev/video0 -c disconnect=1 >>unplug-ctl.log 2>&1 && break
      echo "v4l2-ctl exited $?" >>unplug-ctl.log; sleep 1
    done
    wait $STREAM
    wait
    echo done >finished
    """#

    override class func setUp() {
        super.setUp()
        guard let withVivid = withVivid.path else {
            skipReason = withVivid.reason
            print("VividCameraTests: skipped: \(withVivid.reason)")
            return
        }
        let folder = TestSupport.temporaryDirectory("vivid")
        let scriptFile = folder.appendingPathComponent("guest.sh")
        try! script.write(to: scriptFile, atomically: true, encoding: .utf8)
        chmod(scriptFile.path, 0o755)
        let result = try! TestSupport.run("/usr/bin/env", ["WITH_VIVID_SHARE=\(folder.path)", "WITH_VIVID_TIMEOUT=240",
                                                           "OUT=\(folder.path)", "PHOTOPICK=\(TestSupport.photopick)",
                                                           withVivid, scriptFile.path], timeout: 300)
        let log = String(decoding: result.output, as: UTF8.self) + result.error
        if result.status == 125 {
            // Only a VM that cannot boot at all is a reason to skip.
            skipReason = "the VM could not boot: " + log.split(separator: "\n").suffix(5).joined(separator: " / ")
            print("VividCameraTests: skipped: \(skipReason!)")
            return
        }
        guest = (folder, "with-vivid exited \(result.status): \(log)")
    }

    private func output() throws -> (folder: URL, log: String) {
        if let skipReason = Self.skipReason { throw XCTSkip(skipReason) }
        let guest = try XCTUnwrap(Self.guest)
        XCTAssertTrue(FileManager.default.fileExists(atPath: guest.folder.appendingPathComponent("finished").path), guest.log)
        return guest
    }

    /// A file the guest wrote (call `output()` first).
    private func text(_ name: String) -> String {
        guard let guest = Self.guest else { return "(no guest run)" }
        return (try? String(contentsOf: guest.folder.appendingPathComponent(name), encoding: .utf8)) ?? "(no \(name)) \(guest.log)"
    }

    private func status(_ name: String) -> Int? {
        Int(text("\(name).status").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testCamerasListsTheVividWebcamWithItsFormats() throws {
        _ = try output()
        XCTAssertEqual(status("cameras"), 0, text("cameras.err"))
        let data = Data(text("cameras.json").utf8)
        let cameras = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(cameras.count, 1, "one capture node")
        let camera = try XCTUnwrap(cameras.first)
        XCTAssertEqual(camera["path"] as? String, "/dev/video0")
        XCTAssertEqual(camera["name"] as? String, "vivid")
        XCTAssertEqual(camera["usable"] as? Bool, true)
        let formats = try XCTUnwrap(camera["formats"] as? [[String: Any]])
        let yuyv = try XCTUnwrap(formats.first { $0["fourcc"] as? String == "YUYV" })
        let sizes = try XCTUnwrap(yuyv["sizes"] as? [[String: Any]])
        let vga = try XCTUnwrap(sizes.first { $0["width"] as? Int == 640 && $0["height"] as? Int == 480 })
        XCTAssertEqual((vga["fps"] as? [Double])?.first, 25, "vivid's top rate at 640x480")
        XCTAssertTrue(text("cameras.txt").contains("/dev/video0  vivid"), text("cameras.txt"))
    }

    /// vivid's 75 % colour bars, left to right: grey, yellow, cyan, green, magenta, red, blue, black.
    func testCaptureWritesAJPEGOfTheColourBars() throws {
        _ = try output()
        XCTAssertEqual(status("capture"), 0, text("capture.err"))
        let guest = try output()
        let path = guest.folder.appendingPathComponent("capture.jpg").path
        XCTAssertEqual(text("capture.out").trimmingCharacters(in: .newlines), path, "the path is printed")
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else { return XCTFail("not a picture: \(path)") }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        XCTAssertGreaterThanOrEqual(width, 1280, "taken at the camera's largest size")
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!
        // 75 % bars: 191 is 75 % of full scale.
        let expected: [(String, (Int, Int, Int))] = [("grey", (191, 191, 191)), ("yellow", (191, 191, 0)), ("cyan", (0, 191, 191)),
                                                     ("green", (0, 191, 0)), ("magenta", (191, 0, 191)), ("red", (191, 0, 0)),
                                                     ("blue", (0, 0, 191)), ("black", (19, 19, 19))]
        for (index, (name, colour)) in expected.enumerated() {
            let x = width * (2 * index + 1) / 16, y = height / 2
            let offset = y * stride + x * channels
            let actual = (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
            let close = abs(actual.0 - colour.0) <= 30 && abs(actual.1 - colour.1) <= 30 && abs(actual.2 - colour.2) <= 30
            XCTAssertTrue(close, "bar \(index + 1) should be \(name) \(colour), is \(actual)")
        }
        // EXIF: the device as make and model, the capture's date.
        let exif = try TestSupport.run("/usr/bin/exiftool", ["-s3", "-Make", "-Model", "-DateTimeOriginal", "-Orientation#", path])
        let lines = String(decoding: exif.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(Array(lines.prefix(2)), ["vivid", "vivid"])
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertEqual(lines.last, "1")
    }

    func testCaptureGoesToPicturesCameraAndNeverReplacesAFile() throws {
        _ = try output()
        XCTAssertEqual(status("capture-default"), 0, text("capture-default.out"))
        let printed = text("capture-default.out").trimmingCharacters(in: .newlines)
        let guest = try output()
        XCTAssertTrue(printed.hasPrefix(guest.folder.appendingPathComponent("home/Pictures/Camera/IMG_").path), printed)
        XCTAssertTrue(printed.hasSuffix(".jpg"), printed)
        XCTAssertTrue(FileManager.default.fileExists(atPath: printed))
        XCTAssertEqual(status("capture-again"), 1, "an existing --output is refused")
        XCTAssertTrue(text("capture-again.out").contains("already exists"), text("capture-again.out"))
    }

    func testStreamingDeliversFramesAtTheNegotiatedRate() throws {
        _ = try output()
        XCTAssertEqual(status("stream"), 0, text("stream.err"))
        let report = text("stream.out")
        // "N frames in 4 s: R fps (640x480 YUYV at 25 fps), D dropped by the driver"
        let frames = Int(report.split(separator: " ").first ?? "") ?? 0
        XCTAssertTrue(report.contains("at 25 fps"), "the rate was set explicitly, not the driver's 5 fps default: \(report)")
        // Under emulation frames may come late; the count must still be of the rate's order.
        XCTAssertGreaterThanOrEqual(frames, 50, report)
        XCTAssertLessThanOrEqual(frames, 25 * 4 + 5, report)
    }

    func testACameraInUseByAnotherProgramIsSaidSo() throws {
        _ = try output()
        XCTAssertEqual(status("busy"), 1, text("busy.out"))
        XCTAssertTrue(text("busy.err").contains("Camera in use: vivid is in use by another program"), text("busy.err"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: try output().folder.appendingPathComponent("busy.jpg").path))
        XCTAssertEqual(status("stream"), 0)
    }

    func testAStalledCameraIsRestartedOnceThenReported() throws {
        _ = try output()
        XCTAssertEqual(status("stall"), 1, text("stall.out"))
        let messages = text("stall.err")
        XCTAssertTrue(messages.contains("Camera stopped: vivid stopped sending pictures."), messages)
        XCTAssertEqual(messages.components(separatedBy: "streaming 640x480").count - 1, 1, "the restart brought no frames: \(messages)")
    }

    /// Two screenshots of the window a moment apart differ in the camera cell, and only there.
    func testTheWindowsCameraCellIsLive() throws {
        _ = try output()
        let guest = try output()
        let first = try XCTUnwrap(Screenshot(guest.folder.appendingPathComponent("window-1.png").path), text("window.err"))
        let second = try XCTUnwrap(Screenshot(guest.folder.appendingPathComponent("window-2.png").path))
        // The first cell is the top left square under the 52-pixel header; the second beside it.
        let camera = (x: 20..<120, y: 70..<170), photo = (x: 160..<260, y: 70..<170)
        XCTAssertGreaterThan(first.differingPixels(from: second, x: camera.x, y: camera.y), 1000, "the camera cell shows live frames")
        XCTAssertEqual(first.differingPixels(from: second, x: photo.x, y: photo.y), 0, "the photo beside it stays still")
        XCTAssertGreaterThan(first.distinctColours(x: camera.x, y: camera.y), 4, "a picture, not an icon on grey")
    }

    /// Click the camera cell, Space, Ctrl+Enter: the photo just taken is what the picker prints.
    func testAPhotoTakenInTheWindowIsSavedPickedAndPrinted() throws {
        let guest = try output()
        XCTAssertEqual(status("window"), 0, text("window.err"))
        let printed = text("window.out").split(separator: "\n").map(String.init)
        XCTAssertEqual(printed.count, 1, "one photo picked: \(printed)")
        let path = try XCTUnwrap(printed.first)
        XCTAssertTrue(path.hasPrefix(guest.folder.appendingPathComponent("home/Pictures/Camera/IMG_").path), path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        let exif = try TestSupport.run("/usr/bin/exiftool", ["-s3", "-Make", path])
        XCTAssertEqual(String(decoding: exif.output, as: UTF8.self).trimmingCharacters(in: .newlines), "vivid")
        // The capture view showed the camera large: mostly colour bars, not the grid.
        let capture = try XCTUnwrap(Screenshot(guest.folder.appendingPathComponent("window-capture.png").path))
        XCTAssertGreaterThan(capture.distinctColours(x: 100..<900, y: 300..<400), 5)
    }

    func testUnpluggingWhileStreamingIsReported() throws {
        _ = try output()
        XCTAssertEqual(status("unplug"), 1, text("unplug.out") + text("unplug.err") + text("unplug-ctl.log"))
        let messages = text("unplug.err")
        XCTAssertTrue(messages.contains("Camera unplugged: vivid was unplugged."), messages)
        XCTAssertFalse(messages.contains("Camera stopped"), "unplugged, not stalled: \(messages)")
    }
}

/// A PNG screenshot's pixels, for comparing regions.
struct Screenshot {
    let width: Int, height: Int, stride: Int, channels: Int
    let pixels: [UInt8]

    init?(_ path: String) {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        width = Int(gdk_pixbuf_get_width(pixbuf))
        height = Int(gdk_pixbuf_get_height(pixbuf))
        stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        pixels = Array(UnsafeBufferPointer(start: gdk_pixbuf_get_pixels(pixbuf), count: stride * height))
    }

    private func colour(_ x: Int, _ y: Int) -> UInt32 {
        let offset = y * stride + x * channels
        return UInt32(pixels[offset]) << 16 | UInt32(pixels[offset + 1]) << 8 | UInt32(pixels[offset + 2])
    }

    func differingPixels(from other: Screenshot, x: Range<Int>, y: Range<Int>) -> Int {
        var count = 0
        for row in y { for column in x where colour(column, row) != other.colour(column, row) { count += 1 } }
        return count
    }

    func distinctColours(x: Range<Int>, y: Range<Int>) -> Int {
        var seen = Set<UInt32>()
        for row in y { for column in x { seen.insert(colour(column, row)) } }
        return seen.count
    }
}
