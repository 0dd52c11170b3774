// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The portal backend under sway (headless): an app on Wayland asks through GTK's own portal code,
/// which gives the portal its window as a `wayland:` handle (xdg-foreign), and the picker opens
/// as that window's child: sway floats it over the app.
final class PortalWaylandTests: XCTestCase {
    private var sway: SwayCompositor!
    private var bus: PrivateSessionBus!
    private var made: PortalBackendTests.Home!
    private var environment: [String: String] = [:]

    override func setUpWithError() throws {
        for tool in [SwayCompositor.executable, "/usr/bin/swaymsg", "/usr/bin/setpriv", "/usr/libexec/xdg-desktop-portal", "/usr/libexec/xdg-desktop-portal-gtk",
                     "/usr/bin/convert", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        sway = try SwayCompositor()
        made = try PortalBackendTests.makeHome(idleExit: 600)
        var base = ProcessInfo.processInfo.environment
        for (key, value) in ["HOME": made.home.path, "XDG_CONFIG_HOME": made.config.path, "XDG_DATA_HOME": made.home.appendingPathComponent("data").path,
                             "XDG_CACHE_HOME": made.home.appendingPathComponent("cache").path, "XDG_STATE_HOME": made.home.appendingPathComponent("state").path,
                             "XDG_CURRENT_DESKTOP": "photopick", "XDG_DESKTOP_PORTAL_DIR": made.portals.path, "GSETTINGS_BACKEND": "memory",
                             "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "TZ": "UTC"] {
            base[key] = value
        }
        if base["DBUS_SESSION_BUS_ADDRESS"] == InProcessGTK.noBus { base.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS") }
        environment = sway.clientEnvironment(base)
        bus = try PrivateSessionBus(serviceFolder: made.services, environment: environment)
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
        sway = nil
        super.tearDown()
    }

    private var backendLog: String { (try? String(contentsOf: made.backendLog, encoding: .utf8)) ?? "" }

    func testTheChooserFloatsOverItsWaylandParent() throws {
        let app = try PortalClient(["/usr/bin/python3", PortalBackendTestsClient.gtkApp, "4", "Attach Photos"], busAddress: bus.address, display: nil,
                                   environment: environment.merging(["GDK_DEBUG": "portals"]) { $1 })
        var picker: (name: String, floating: Bool, rect: (x: Int, y: Int, width: Int, height: Int))?
        var host: (name: String, floating: Bool, rect: (x: Int, y: Int, width: Int, height: Int))?
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, picker == nil || host == nil {
            let windows = try sway.windows()
            picker = windows.first { $0.name == "Attach Photos" }
            host = windows.first { $0.name == "Host App" }
            usleep(200_000)
        }
        let shown = try XCTUnwrap(picker, "no picker window; the backend said: \(backendLog)")
        let parent = try XCTUnwrap(host)
        XCTAssertTrue(backendLog.contains("the picker"), backendLog)
        XCTAssertFalse(backendLog.contains("shown without a parent"), backendLog)
        // A child of the app's window: sway floats it, over its parent, as a dialog.
        XCTAssertTrue(shown.floating, "\(shown)")
        XCTAssertFalse(parent.floating, "\(parent)")
        let centre = (x: shown.rect.x + shown.rect.width / 2, y: shown.rect.y + shown.rect.height / 2)
        XCTAssertTrue(centre.x >= parent.rect.x && centre.x <= parent.rect.x + parent.rect.width
                      && centre.y >= parent.rect.y && centre.y <= parent.rect.y + parent.rect.height, "\(shown.rect) over \(parent.rect)")
        // Picked with the pointer (headless sway has no input device): the first and third
        // photos, then Add; the app gets them (GTK 4.8 reverses the list: the last pick first).
        let first = (shown.rect.x + 67, shown.rect.y + 114), third = (shown.rect.x + 319, shown.rect.y + 114)
        try sway.waitForPhoto(at: first)
        let pointer = try VirtualPointer(sway)
        pointer.click(first.0, first.1)
        pointer.click(third.0, third.1)
        pointer.click(shown.rect.x + shown.rect.width - 40, shown.rect.y + 22)
        let answer = try XCTUnwrap(app.next(timeout: 20), "the app heard nothing; the backend said: \(backendLog)")
        XCTAssertEqual(answer["response"] as? String, "accept")
        XCTAssertEqual(answer["files"] as? [String], [made.photos[2], made.photos[0]])
        XCTAssertFalse(try sway.windows().contains { $0.name == "Attach Photos" })
    }

    /// A GTK 3 app on Wayland (GTK_USE_PORTAL=1): GTK 3.24 exports its window through xdg-foreign
    /// v1 too; the chooser floats over it and answers it (cancelled here with the pointer).
    func testAGTK3AppOnWayland() throws {
        let app = try PortalClient(["/usr/bin/python3", PortalBackendTestsClient.gtkApp, "3", "Attach From GTK 3"], busAddress: bus.address, display: nil,
                                   environment: environment.merging(["GTK_USE_PORTAL": "1"]) { $1 })
        let shown = try XCTUnwrap(try sway.waitForWindow("Attach From GTK 3"), "no picker; the backend said: \(backendLog)")
        XCTAssertTrue(try sway.windows().first { $0.name == "Attach From GTK 3" }?.floating == true)
        XCTAssertFalse(backendLog.contains("shown without a parent"), backendLog)
        try sway.waitForPhoto(at: (shown.x + 67, shown.y + 114))
        let rect = try XCTUnwrap(try sway.windows().first { $0.name == "Attach From GTK 3" }?.rect)
        let pointer = try VirtualPointer(sway)
        pointer.click(rect.x + 193, rect.y + 114)
        pointer.click(rect.x + rect.width - 40, rect.y + 22)
        let answer = try XCTUnwrap(app.next(timeout: 20), "the app heard nothing")
        XCTAssertEqual(answer["response"] as? String, "accept")
        XCTAssertEqual(answer["files"] as? [String], [made.photos[1]])
    }

    /// The X11 suite's answers under sway: two apps at once get two windows (tiled side by side:
    /// no parent) and their own answers, picked and cancelled with the pointer.
    func testTwoAppsAtOnceUnderWayland() throws {
        let first = try client(["open", "OpenFile", "way1", PortalBackendTests.images, "--title", "Left App"])
        let second = try client(["open", "OpenFile", "way2", PortalBackendTests.images, "--title", "Right App"])
        _ = try XCTUnwrap(first.next()?["handle"] as? String)
        _ = try XCTUnwrap(second.next()?["handle"] as? String)
        let left = try XCTUnwrap(try sway.waitForWindow("Left App")), right = try XCTUnwrap(try sway.waitForWindow("Right App"))
        // (Read again once both show: the first had the whole screen before.)
        let windows = try sway.windows()
        let one = try XCTUnwrap(windows.first { $0.name == "Left App" }?.rect ?? left), two = try XCTUnwrap(windows.first { $0.name == "Right App" }?.rect ?? right)
        try sway.waitForPhoto(at: (two.x + 67, two.y + 114))
        let pointer = try VirtualPointer(sway)
        pointer.click(two.x + 193, two.y + 114)
        pointer.click(two.x + two.width - 40, two.y + 22)
        XCTAssertEqual((second.next(timeout: 20)?["results"] as? [String: Any])?["uris"] as? [String], [URL(fileURLWithPath: made.photos[1]).absoluteString])
        // (Where the first is now: sway gave it the screen the second left.)
        try waitUntilGone("Right App")
        let now = try XCTUnwrap(try sway.windows().first { $0.name == "Left App" }?.rect ?? one)
        try sway.waitForPhoto(at: (now.x + 67, now.y + 114))
        pointer.click(now.x + 52, now.y + 22)
        XCTAssertEqual(first.next(timeout: 20)?["response"] as? Int, 1)
    }

    /// Close under sway: the app closes its request, the window goes, no answer follows; a save
    /// goes to GTK's dialog, and its Close closes that.
    func testCloseAndSavingUnderWayland() throws {
        let app = try client(["open", "OpenFile", "wayclose", PortalBackendTests.images, "--title", "Closed Wayland", "--close-after", "3"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        XCTAssertNotNil(try sway.waitForWindow("Closed Wayland"), backendLog)
        XCTAssertEqual(app.next(timeout: 10)?["closed"] as? Bool, true)
        try waitUntilGone("Closed Wayland")
        XCTAssertNil(app.next(timeout: 2), "a Response after Close")

        let save = try client(["open", "SaveFile", "waysave", "{'current_name': <'notes.txt'>}", "--title", "Save Wayland", "--close-after", "4"])
        _ = try XCTUnwrap(save.next()?["handle"] as? String)
        XCTAssertNotNil(try sway.waitForWindow("Save Wayland"), backendLog)
        XCTAssertEqual(save.next(timeout: 15)?["closed"] as? Bool, true)
        try waitUntilGone("Save Wayland")
    }

    private func client(_ arguments: [String]) throws -> PortalClient {
        try PortalClient(arguments, busAddress: bus.address, display: nil, environment: environment)
    }

    private func waitUntilGone(_ name: String) throws {
        let gone = Date().addingTimeInterval(10)
        while Date() < gone, try sway.windows().contains(where: { $0.name == name }) { usleep(200_000) }
        XCTAssertFalse(try sway.windows().contains { $0.name == name }, "\(name) still shows")
    }

    /// An app that goes away under Wayland: its request is closed, and the picker with it.
    func testAnAppThatGoesAwayTakesItsChooser() throws {
        let app = try PortalClient(["/usr/bin/python3", PortalBackendTestsClient.gtkApp, "4", "Orphan Photos"], busAddress: bus.address, display: nil,
                                   environment: environment.merging(["GDK_DEBUG": "portals"]) { $1 })
        XCTAssertNotNil(try sway.waitForWindow("Orphan Photos"), "no picker; the backend said: \(backendLog)")
        app.stop()
        let gone = Date().addingTimeInterval(10)
        while Date() < gone, try sway.windows().contains(where: { $0.name == "Orphan Photos" }) { usleep(200_000) }
        XCTAssertFalse(try sway.windows().contains { $0.name == "Orphan Photos" })
    }
}

/// Picks dragged from the picker into another Wayland app under sway (moved with a virtual
/// pointer: headless sway has no input device): the app receives the files in pick order.
final class WaylandDragTests: XCTestCase {
    func testPicksDraggedIntoAnotherAppArriveInPickOrder() throws {
        for tool in [SwayCompositor.executable, "/usr/bin/swaymsg", "/usr/bin/grim", "/usr/bin/wayland-scanner", "/usr/bin/gcc", "/usr/bin/convert"]
            where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        let sway = try SwayCompositor()
        let home = TestSupport.temporaryDirectory("wayland-drag")
        let library = home.appendingPathComponent("Photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let photos = try PortalBackendTests.makePhotos(5, in: library)
        var base = ProcessInfo.processInfo.environment
        for (key, value) in ["XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_CACHE_HOME": home.appendingPathComponent("cache").path,
                             "XDG_STATE_HOME": home.appendingPathComponent("state").path, "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                             "GSETTINGS_BACKEND": "memory", "GSK_RENDERER": "cairo", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "TZ": "UTC"] {
            base[key] = value
        }
        if base["DBUS_SESSION_BUS_ADDRESS"] == InProcessGTK.noBus { base.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS") }
        let environment = sway.clientEnvironment(base)
        let indexed = try TestSupport.run(TestSupport.photopick, ["index", "--library", library.path], environment: environment)
        XCTAssertEqual(indexed.status, 0, indexed.error)

        let receiver = try PortalClient(["/usr/bin/python3", TestSupport.packageRoot.appendingPathComponent("Tests/Portal/drop-receiver").path],
                                        busAddress: environment["DBUS_SESSION_BUS_ADDRESS"] ?? "", display: nil, environment: environment)
        XCTAssertEqual(receiver.next(timeout: 20)?["ready"] as? Bool, true)
        let picker = TestProcesses.process(TestSupport.photopick, ["--library", library.path, "--no-camera"])
        picker.environment = environment
        picker.standardOutput = FileHandle.nullDevice
        picker.standardError = FileHandle.nullDevice
        try picker.run()
        TestProcesses.adopt(picker)
        defer { TestProcesses.stop(picker) }
        let window = try XCTUnwrap(try sway.waitForWindow("Pick Photos"))
        // (Read once both show: sway gave the receiver the whole screen before.)
        let target = try XCTUnwrap(try sway.waitForWindow("Receiver"))
        // sway tiles the two side by side; the picker's first two cells, newest first.
        let first = (window.x + 67, window.y + 114), second = (window.x + 193, window.y + 114)
        try sway.waitForPhoto(at: first)
        let pointer = try VirtualPointer(sway)
        // Picks the second photo, then the first; drags the first (a pick: every pick goes).
        pointer.click(second.0, second.1)
        pointer.click(first.0, first.1)
        pointer.drag(from: first, to: (target.x + target.width / 2, target.y + target.height / 2))
        let dropped = try XCTUnwrap(receiver.next(timeout: 15), "nothing dropped")
        XCTAssertEqual(dropped["dropped"] as? [String], [photos[1], photos[0]])
    }
}
