// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// A server that stops answering (its processes stopped with SIGSTOP, as a NAS that hangs:
/// connections stay open, reads wait for ever) never keeps the picker from closing or from
/// opening: the GTK thread never waits on the network (issue 37).
final class RemoteStalledTests: RemoteWindowTestCase {

    /// Seconds until the process ends, at most `limit` (nil: it was still running).
    private func secondsUntilExit(_ picker: WindowProcess, limit: Double) -> Double? {
        let started = Date()
        while picker.isRunning, Date().timeIntervalSince(started) < limit { usleep(20_000) }
        return picker.isRunning ? nil : Date().timeIntervalSince(started)
    }

    /// Escape while a pick's copy waits on the stalled server: the window goes and the process
    /// ends, cancelled, as a script's `$(photopick …)` needs; it did not end at all.
    func testEscapeWhileACopyWaitsOnAStalledServerEndsTheProcess() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        try pickWithACopyUnderWay(picker, server)
        try server.stall()
        defer { try? server.resume() }
        usleep(500_000)
        try picker.keys("Escape")
        let seconds = secondsUntilExit(picker, limit: 10)
        XCTAssertNotNil(seconds, "the process still ran 10 s after Escape: \(picker.errorText)")
        XCTAssertLessThan(seconds ?? 99, 3, picker.errorText)
        let (status, lines) = picker.finish(timeout: 1)
        XCTAssertEqual(status, 1, "cancelled: \(picker.errorText)")
        XCTAssertEqual(lines, [])
    }

    /// `--timeout` fires on time with a copy waiting on the stalled server (it fired at 29 s for 12).
    func testATimeoutFiresOnTimeWhileACopyWaitsOnAStalledServer() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let launched = Date()
        let picker = try openPicker(server, photos, arguments: ["--multiple", "--timeout=12"])
        defer { picker.stop() }
        try pickWithACopyUnderWay(picker, server)
        try server.stall()
        defer { try? server.resume() }
        _ = secondsUntilExit(picker, limit: 30)
        let ended = Date().timeIntervalSince(launched)
        XCTAssertFalse(picker.isRunning, "still running \(ended) s after its launch: \(picker.errorText)")
        XCTAssertLessThan(ended, 15, "a 12 s timeout, counted from the launch")
        let (status, _) = picker.finish(timeout: 1)
        XCTAssertEqual(status, 5, "zenity's status for a timeout: \(picker.errorText)")
    }

    /// A window started while the server is stalled appears (the check of the folder waits
    /// 3 s at most, then the window opens), and Escape ends it; it never appeared.
    func testAWindowStartedWhileTheServerIsStalledAppearsAndCloses() throws {
        let (server, photos) = try start()
        defer { server.close() }
        try server.stall()
        defer { try? server.resume() }
        let launched = Date()
        let picker = try WindowProcess(display: display, arguments: ["--multiple", "--library", server.uri(photos.path)],
                                       dataHome: dataHome, cacheHome: cacheHome, environment: server.environment)
        defer { picker.stop() }
        XCTAssertLessThan(Date().timeIntervalSince(launched), 10, "the window appeared")
        XCTAssertTrue(picker.isRunning)
        // And says why nothing comes: the look at the folder has a deadline too.
        XCTAssertTrue(wait(seconds: 15) { picker.errorText.contains("cannot be reached (it has not answered for 3 s)") }, picker.errorText)
        try picker.keys("Escape")
        let seconds = secondsUntilExit(picker, limit: 10)
        XCTAssertNotNil(seconds, "the process still ran 10 s after Escape: \(picker.errorText)")
        XCTAssertLessThan(seconds ?? 99, 3, picker.errorText)
        XCTAssertEqual(picker.finish(timeout: 1).status, 1, picker.errorText)
    }

    /// A server that hangs while the window is open is said not to answer (its look waits 3 s
    /// at most, though the read never returns), its photos dimmed as for one switched off; once
    /// it answers again they come back, and nothing was said twice.
    func testAServerThatHangsWhileTheWindowIsOpenIsSaidNotToAnswerAndComesBack() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        let before = try brightness(around: firstCell)
        try server.stall()
        var resumed = false
        defer { if !resumed { try? server.resume() } }
        let stalled = Date()
        XCTAssertTrue(wait(seconds: 20) { picker.errorText.contains("cannot be reached (it has not answered for 3 s)") }, picker.errorText)
        XCTAssertLessThan(Date().timeIntervalSince(stalled), 5 + 3 + 2, "within a look's interval and its deadline")
        XCTAssertTrue(wait { (try? self.brightness(around: self.firstCell)).map { abs($0 - before) > 30 } ?? false }, "the cell is dimmed")
        try server.resume()
        resumed = true
        XCTAssertTrue(wait(seconds: 30) { (try? self.brightness(around: self.firstCell)).map { abs($0 - before) < 8 } ?? false },
                      "the cell is as before")
        XCTAssertEqual(picker.errorText.components(separatedBy: "cannot be reached").count - 1, 1, "said once: \(picker.errorText)")
        try picker.keys("Escape")
        XCTAssertNotNil(secondsUntilExit(picker, limit: 5), picker.errorText)
    }

    /// `--uri` asks the server whether each pick is still there once the window has gone: a
    /// server that hangs is given 10 s, then the pick is left out, and why is said; the script does not
    /// wait for ever.
    func testAnURIAnswerDoesNotWaitOnAStalledServer() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos, arguments: ["--uri"])
        defer { picker.stop() }
        try picker.keys("space")
        usleep(300_000)
        try server.stall()
        defer { try? server.resume() }
        try picker.keys("ctrl+Return")
        let seconds = secondsUntilExit(picker, limit: 30)
        XCTAssertNotNil(seconds, "the script still waited 30 s after its confirm: \(picker.errorText)")
        XCTAssertLessThan(seconds ?? 99, 15, picker.errorText)
        // (The sentence in the person's language; the server's answer, untranslated, on a line of its own.)
        XCTAssertTrue(picker.errorText.contains("cannot be reached, and is left out"), picker.errorText)
        XCTAssertTrue(picker.errorText.contains("IMG_2.JPG: it has not answered for 10 s"), picker.errorText)
        XCTAssertNotEqual(picker.finish(timeout: 1).status, 0, "no pick was given")
    }
}
