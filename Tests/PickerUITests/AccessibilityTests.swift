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
        // Each pick said with its number (Orca 43 reads the cell again at the change but says
        // nothing of it); the first unpicked, the second's number closed up: said with it, as a
        // number on another cell is not read.
        XCTAssertEqual(heard["said"] as? [String], ["picked 1 of 1", "picked 2 of 2", "not picked. Pick 2 is now 1"])
    }

    /// A pick past the maximum is refused with words a screen reader says (a toast is not read).
    func testAPickPastTheMaximumIsSaid() throws {
        _ = try list()
        let heard = try hear(["--max", "2"], keys: "space Right space Right space")
        XCTAssertEqual(heard["said"] as? [String], ["picked 1 of 1", "picked 2 of 2", "You can pick up to 2"])
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

    /// Every control on screen has a name a person can use, in the grid, the preview and the
    /// album list, and Tab goes round the whole picker: the grid, the timeline, the strip, the
    /// header, and back to the photo it left; Shift+Tab the other way; the album list is two
    /// stops (its search and its list), as the grid is one.
    func testEveryControlIsNamedAndTabGoesRoundThePicker() throws {
        let order = try list()
        let second = URL(fileURLWithPath: order[1]).lastPathComponent
        // Two picks; Tab round and back; the preview; the album list (Tab, Tab, Shift+Tab in it).
        let keys = ["space", "Right", "space", "@audit:grid", "Tab", "Tab", "Tab", "Tab", "Tab", "Tab",
                    "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab",
                    "alt+Return", "@audit:preview", "Escape", "ctrl+o", "@audit:albums", "Tab", "Tab", "shift+Tab", "Escape"]
        let heard = try hear(["--width", "560", "--height", "420"], keys: keys.joined(separator: " "), end: "Escape")
        let audits = heard["audits"] as? [String: [String: Any]] ?? [:]
        for (place, least) in [("grid", 8), ("preview", 3), ("albums", 10)] {
            let controls = (audits[place]?["controls"] as? [[String]] ?? []).filter { $0.first != "table cell" }
            XCTAssertGreaterThanOrEqual(controls.count, least, "\(place): \(controls)")
            XCTAssertEqual(audits[place]?["unnamed"] as? [[String]], [], "\(place): controls a screen reader cannot name")
        }
        let grid = audits["grid"]?["controls"] as? [[String]] ?? []
        XCTAssertTrue(grid.contains(["table", "Recents"]), "the grid is named for its album: \(grid)")
        let preview = audits["preview"]?["controls"] as? [[String]] ?? []
        XCTAssertTrue(preview.contains(["push button", "Back to the grid"]), "\(preview)")
        let albums = audits["albums"]?["controls"] as? [[String]] ?? []
        XCTAssertTrue(albums.contains(["entry", "Search albums"]) && albums.contains(["list", "Albums"]), "\(albums)")

        // Where each key put the focus (the last focus after each key; the keys are counted).
        let focus = heard["focus"] as? [[String: Any]] ?? []
        var after: [Int: String] = [:]
        for event in focus {
            guard let key = event["after"] as? Int, let role = event["role"] as? String, let name = event["name"] as? String else { continue }
            after[key] = role + ": " + name
        }
        let stops = (4...15).map { after[$0] ?? "(no focus change)" }
        let cell = "table cell: " + second + ", "
        let forward = ["slider: Timeline, ", "push button: Unpick photo 1, ", "push button: Cancel", "push button: Album: Recents",
                       "push button: Add 2", cell]
        let backward = ["push button: Add 2", "push button: Album: Recents", "push button: Cancel", "push button: Unpick photo 2, ",
                        "slider: Timeline, ", cell]
        XCTAssertTrue(stops.count == 12 && zip(stops, forward + backward).allSatisfy { $0.hasPrefix($1) },
                      "Tab stops \(stops), expected \(forward) then \(backward)")
        // The album list: its search first, Tab to the open album's row, Tab back to the search,
        // Shift+Tab to the row again (not through every folder).
        let inList = (18...21).map { after[$0] ?? "(no focus change)" }
        let row = "list item: Recents, "
        XCTAssertTrue(inList.count == 4 && inList[0] == "entry: Search albums" && inList[1].hasPrefix(row)
                      && inList[2] == "entry: Search albums" && inList[3].hasPrefix(row), "\(inList)")
        XCTAssertEqual(heard["status"] as? Int, 1, "Escape from the grid cancels")
    }

    /// The strip by keys, as a screen reader hears it: a pick moved with Alt+Right is said with
    /// its new number, one unpicked there with the numbers that closed up, and the strip's
    /// buttons are named in the new order.
    func testThePicksMovedAndUnpickedInTheStripAreSaid() throws {
        let order = try list()
        let names = order.prefix(3).map { URL(fileURLWithPath: $0).lastPathComponent }
        // Three picks; into the strip (on the first), Alt+Right moves it to 2; Home, Space unpicks
        // the one now first.
        let heard = try hear(keys: "space Right space Right space Tab alt+Right Home space")
        XCTAssertEqual(heard["said"] as? [String], ["picked 1 of 1", "picked 2 of 2", "picked 3 of 3", "Moved to 2 of 3",
                                                    "Picks 2 to 3 are now 1 to 2"])
        let strip = heard["strip"] as? [String] ?? []
        XCTAssertEqual(strip.count, 2, "\(strip)")
        XCTAssertTrue(strip.first?.hasPrefix("Unpick photo 1, \(names[0]), ") == true && strip.last?.hasPrefix("Unpick photo 2, \(names[2]), ") == true,
                      "\(strip)")
        XCTAssertEqual(heard["status"] as? Int, 0)
    }

    /// What Orca 43 itself says (Debian 12's screen reader, its speech logged, nothing voiced):
    /// each pick with its number, and an unpick with the numbers that closed up. Orca reads a
    /// cell again when its checked state changes but says nothing of it: before, a pick was
    /// silent.
    func testOrcaSaysEachPickWithItsNumber() throws {
        _ = try list()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/orca") else {
            XCTFail("/usr/bin/orca is missing: run scripts/bootstrap")
            return
        }
        let client = TestSupport.packageRoot.appendingPathComponent("Tests/Accessibility/orca-hears.py").path
        let run = try TestSupport.run("/usr/bin/python3", [client, "--keys", "space Right space Left space",
                                                          "--expect", "picked 1 of 1", "--expect", "picked 2 of 2",
                                                          "--expect", "not picked. Pick 2 is now 1",
                                                          "--", TestSupport.photopick, "--library", library.path, "--no-camera"],
                                      timeout: 120)
        XCTAssertEqual(run.status, 0, String(decoding: run.output, as: UTF8.self) + run.error)
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
