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
        try server.limitRate("2mbit")
        try picker.keys("space")
        XCTAssertTrue(wait { (self.fractions(picker).last ?? 0) > 0.05 }, picker.errorText)
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
        try server.limitRate("2mbit")
        try picker.keys("space")
        XCTAssertTrue(wait { (self.fractions(picker).last ?? 0) > 0.05 }, picker.errorText)
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
        try picker.keys("Escape")
        let seconds = secondsUntilExit(picker, limit: 10)
        XCTAssertNotNil(seconds, "the process still ran 10 s after Escape: \(picker.errorText)")
        XCTAssertLessThan(seconds ?? 99, 3, picker.errorText)
        XCTAssertEqual(picker.finish(timeout: 1).status, 1, picker.errorText)
    }
}
