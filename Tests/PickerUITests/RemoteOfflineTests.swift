import Foundation
import TestSupport
import XCTest

/// A server that goes away while the picker is open (a NAS switched off, the network down) and
/// comes back: its photos stay listed, marked offline, and come back as they were.
final class RemoteOfflineTests: RemoteWindowTestCase {
    /// The cells of a server that stops answering are dimmed and the window says why, once; a
    /// pick meanwhile fails to copy; back, the cells are as before and the failed copy is made
    /// without the person asking again.
    func testPhotosOfAServerThatGoesAwayAreMarkedOfflineAndComeBack() throws {
        let (server, photos) = try start()
        defer { server.close() }
        let picker = try openPicker(server, photos)
        defer { picker.stop() }
        let before = try brightness(around: firstCell)
        try server.stop()
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains("cannot be reached") }, picker.errorText)
        usleep(500_000)
        let offline = try brightness(around: firstCell)
        XCTAssertGreaterThan(abs(offline - before), 30, "the cell is dimmed: \(before), then \(offline)")
        try picker.keys("space")
        XCTAssertTrue(wait { picker.errorText.contains(" failed ") }, "a pick's copy fails while its server is away: \(picker.errorText)")
        try server.start()
        XCTAssertTrue(wait(seconds: 30) { picker.errorText.contains(" fetched ") },
                      "the failed copy is made once the server answers: \(picker.errorText)")
        usleep(500_000)
        let back = try brightness(around: firstCell)
        XCTAssertLessThan(abs(back - before), 8, "the cell is as before: \(before), then \(back)")
        XCTAssertEqual(picker.errorText.components(separatedBy: "cannot be reached").count - 1, 1, "said once: \(picker.errorText)")
        try picker.keys("ctrl+Return")
        let (status, lines) = picker.finish(timeout: 30)
        XCTAssertEqual(status, 0, picker.errorText)
        XCTAssertEqual(lines.first.flatMap { FileManager.default.contents(atPath: $0) },
                       FileManager.default.contents(atPath: photos.appendingPathComponent("IMG_2.JPG").path))
    }
}
