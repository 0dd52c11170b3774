// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What a screen reader hears of the picker, read over AT-SPI by Tests/Accessibility's client on
/// an accessibility bus of the test's own (issue 41): every cell was "GtkListItemWidget".
final class AccessibilityTests: WindowTestCase {
    /// Runs Tests/Accessibility's client over a picker of the library with `arguments`, pressing
    /// `keys`: what it heard.
    private func hear(_ arguments: [String] = [], keys: String? = nil, action cell: Int? = nil, end: String? = nil) throws -> [String: Any] {
        let typelib = "/usr/lib/x86_64-linux-gnu/girepository-1.0/Atspi-2.0.typelib"
        guard FileManager.default.fileExists(atPath: typelib) else {
            XCTFail("\(typelib) is missing: run scripts/bootstrap")
            throw XCTSkip("no AT-SPI client")
        }
        // A bus that can start the accessibility bus and nothing else (no portal behind the test's back).
        let services = TestSupport.temporaryDirectory("a11y-services")
        try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/org.a11y.Bus.service",
                                         toPath: services.appendingPathComponent("org.a11y.Bus.service").path)
        let runtime = TestSupport.temporaryDirectory("a11y-runtime")
        chmod(runtime.path, 0o700)
        var environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: ["XDG_RUNTIME_DIR": runtime.path])
        let bus = try PrivateSessionBus(serviceFolder: services, environment: environment)
        defer { bus.stop() }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        if let keys { environment["A11Y_KEYS"] = keys }
        if let cell { environment["A11Y_DO"] = String(cell) }
        if let end { environment["A11Y_END"] = end }
        let client = TestSupport.packageRoot.appendingPathComponent("Tests/Accessibility/picker-a11y.py").path
        let run = try TestSupport.run("/usr/bin/python3", [client, TestSupport.photopick, "--library", library.path, "--no-camera"] + arguments,
                                      environment: environment, timeout: 120)
        let heard = try XCTUnwrap(try JSONSerialization.jsonObject(with: run.output) as? [String: Any], run.error)
        XCTAssertNil(heard["problem"] as? String, "\(heard["problem"] ?? "")")
        return heard
    }

    func testCellsAreNamedAndAPickIsHeardWithItsNumber() throws {
        let order = try list()
        let heard = try hear()
        let cells = heard["cells"] as? [String] ?? []
        XCTAssertGreaterThan(cells.count, 6)
        XCTAssertFalse(cells.contains { $0.contains("GtkListItemWidget") || $0.isEmpty }, "\(cells)")
        let first = URL(fileURLWithPath: order[0]).lastPathComponent, second = URL(fileURLWithPath: order[1]).lastPathComponent
        XCTAssertTrue(cells.first?.hasPrefix(first + ", Photo, ") == true, "\(cells.first ?? "")")

        // Space, Right, Space, Left, Space: each change of a cell's checked state, heard with the
        // name it has then: the number is already in it (Orca reads the cell again at the change).
        let events = (heard["events"] as? [[String: Any]] ?? []).map { (name: $0["name"] as? String ?? "", value: $0["value"] as? Int ?? -1) }
        XCTAssertEqual(events.map(\.value), [1, 1, 0], "\(events)")
        guard events.count == 3 else { return }
        XCTAssertTrue(events[0].name.hasPrefix(first) && events[0].name.hasSuffix("picked 1 of 1"), events[0].name)
        XCTAssertTrue(events[1].name.hasPrefix(second) && events[1].name.hasSuffix("picked 2 of 2"), events[1].name)
        XCTAssertTrue(events[2].name.hasPrefix(first) && !events[2].name.contains("picked"), events[2].name)
        // The strip's one pick left, a button named for what it does and what it holds.
        let strip = heard["strip"] as? [String] ?? []
        XCTAssertEqual(strip.count, 1, "\(strip)")
        XCTAssertTrue(strip.first?.hasPrefix("Unpick photo 1, \(second), ") == true, "\(strip)")
        XCTAssertEqual(heard["status"] as? Int, 0)
        // The first unpicked, the second's number closed up: said, as a number on another cell
        // is not read.
        XCTAssertEqual(heard["said"] as? [String], ["Pick 2 is now 1"])
    }

    /// A pick past the maximum is refused with words a screen reader says (a toast is not read).
    func testAPickPastTheMaximumIsSaid() throws {
        _ = try list()
        let heard = try hear(["--max", "2"], keys: "space Right space Right space")
        XCTAssertEqual(heard["said"] as? [String], ["You can pick up to 2"])
        XCTAssertEqual((heard["events"] as? [[String: Any]])?.count, 2, "two picks, the third refused")
    }

    /// The timeline is a slider to a screen reader, one step a month, named for the month it
    /// is on; a step moves the grid there and says the month (Tab reaches it from the grid).
    func testTheTimelineIsASliderNamedForItsMonth() throws {
        _ = try list()
        // (A small window: the 41 demo photos are then more than two screens long.)
        let heard = try hear(["--width", "560", "--height", "420"], keys: "Tab Down Down", end: "Escape")
        let timeline = try XCTUnwrap(heard["timeline"] as? [String: Any], "no slider: \(heard)")
        let said = heard["said"] as? [String] ?? []
        XCTAssertEqual(said.count, 2, "each step's month said: \(said)")
        XCTAssertNotEqual(said.first, said.last, "two months")
        XCTAssertEqual(timeline["value"] as? Double, 2, "two steps down from the newest month")
        XCTAssertGreaterThan(timeline["maximum"] as? Double ?? 0, 2)
        XCTAssertEqual(timeline["name"] as? String, "Timeline, " + (said.last ?? "?"))
        XCTAssertEqual(heard["status"] as? Int, 1, "Escape from the timeline cancels, as from anywhere")
    }

    /// A cell's own action picks it, as a screen reader's DoAction does (no pointer, no keys).
    func testACellsActionPicksIt() throws {
        let order = try list()
        let heard = try hear(action: 2)
        XCTAssertEqual(heard["actions"] as? [String], ["cell.toggle-pick"])
        let events = heard["events"] as? [[String: Any]] ?? []
        XCTAssertEqual(events.count, 1, "\(events)")
        XCTAssertTrue((events.first?["name"] as? String)?.hasPrefix(URL(fileURLWithPath: order[2]).lastPathComponent) == true, "\(events)")
        XCTAssertTrue((events.first?["name"] as? String)?.hasSuffix("picked 1 of 1") == true, "\(events)")
        XCTAssertEqual(heard["status"] as? Int, 0)
    }
}
