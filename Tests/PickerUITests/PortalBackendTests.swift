// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// `photopick portal serve` behind Debian's own xdg-desktop-portal (1.16) on a private session
/// bus under Xvfb, with Debian's GTK backend beside it for what Photopick relays. Apps are
/// played by Tests/Portal/portal-client (GDBus): through the portal as an app asks, or straight
/// to the backend as the portal calls it. Windows are found by their title and driven with keys.
final class PortalBackendTests: XCTestCase {
    private var display: VirtualDisplay!
    private var bus: PrivateSessionBus!
    private var home: URL!
    /// What the backend wrote on standard error (its log).
    private var backendLog: URL!
    /// Pictures' photos, newest first (the grid's order).
    private var photos: [String] = []

    private static let frontend = "/usr/libexec/xdg-desktop-portal"
    private static let gtkBackend = "/usr/libexec/xdg-desktop-portal-gtk"
    private static let client = TestSupport.packageRoot.appendingPathComponent("Tests/Portal/portal-client").path

    override func setUpWithError() throws {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/convert", "/usr/bin/python3", "/usr/bin/dbus-daemon", Self.frontend, Self.gtkBackend]
            where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
        display = try VirtualDisplay()
        let made = try Self.makeHome(idleExit: name.contains("Idle") ? 2 : 600, withOtherBackend: !name.contains("NoOtherChooser"))
        (home, photos, backendLog) = (made.home, made.photos, made.backendLog)
        let (config, portals, services) = (made.config, made.portals, made.services)

        let environment = display.pickerEnvironment(dataHome: home.appendingPathComponent("data"), cacheHome: home.appendingPathComponent("cache"), extra: [
            "HOME": home.path, "XDG_CONFIG_HOME": config.path,
            // The portal chooses a backend whose UseIn names the desktop: Photopick's says "photopick".
            "XDG_CURRENT_DESKTOP": "photopick", "XDG_DESKTOP_PORTAL_DIR": portals.path,
            "GTK_A11Y": "none", "NO_AT_BRIDGE": "1",
        ])
        busEnvironment = environment
        serviceFolder = services
        bus = try PrivateSessionBus(serviceFolder: services, environment: environment)
    }
    private var busEnvironment: [String: String] = [:]
    private var serviceFolder: URL!

    override func tearDown() {
        bus?.stop()
        bus = nil
        display = nil
        super.tearDown()
    }

    /// A home of the test's own, whose Pictures hold `photos`; the portal's backends folder
    /// (Photopick's .portal file as installed, Debian's GTK one); the services the bus can start
    /// (the portal and the GTK backend by Debian's service files, Photopick's backend writing its
    /// log to `backendLog`).
    struct Home {
        let home: URL, config: URL, portals: URL, services: URL, backendLog: URL
        let photos: [String]
    }

    static func makeHome(idleExit: Int, withOtherBackend: Bool = true) throws -> Home {
        let home = TestSupport.temporaryDirectory("portal-home")
        let pictures = home.appendingPathComponent("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let config = home.appendingPathComponent(".config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "XDG_PICTURES_DIR=\"$HOME/Pictures\"\n".write(to: config.appendingPathComponent("user-dirs.dirs"), atomically: true, encoding: .utf8)
        let photos = try makePhotos(12, in: pictures)
        let portals = home.appendingPathComponent("portals")
        try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("data/portal/photopick.portal"),
                                         to: portals.appendingPathComponent("photopick.portal"))
        try FileManager.default.copyItem(atPath: "/usr/share/xdg-desktop-portal/portals/gtk.portal", toPath: portals.appendingPathComponent("gtk.portal").path)
        let services = home.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        for name in ["org.freedesktop.portal.Desktop"] + (withOtherBackend ? ["org.freedesktop.impl.portal.desktop.gtk"] : []) {
            try FileManager.default.copyItem(atPath: "/usr/share/dbus-1/services/\(name).service", toPath: services.appendingPathComponent("\(name).service").path)
        }
        let backendLog = home.appendingPathComponent("backend.log")
        try """
            [D-BUS Service]
            Name=org.freedesktop.impl.portal.desktop.photopick
            Exec=/bin/sh -c 'exec "\(TestSupport.photopick)" portal serve --idle-exit \(idleExit) 2>>"\(backendLog.path)"'
            """.write(to: services.appendingPathComponent("org.freedesktop.impl.portal.desktop.photopick.service"), atomically: true, encoding: .utf8)
        return Home(home: home, config: config, portals: portals, services: services, backendLog: backendLog, photos: photos)
    }

    /// JPEGs dated a day apart, newest first.
    static func makePhotos(_ count: Int, in folder: URL, newest: Double = 1_700_000_000, colour: String = "rgb(200,120,30)") throws -> [String] {
        let first = folder.appendingPathComponent("first.jpg").path
        let made = try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:\(colour)", first])
        XCTAssertEqual(made.status, 0, made.error)
        var paths: [String] = []
        for index in 0..<count {
            let path = folder.appendingPathComponent(String(format: "photo-%02d.jpg", index)).path
            try FileManager.default.copyItem(atPath: first, toPath: path)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: newest - Double(index) * 86_400)], ofItemAtPath: path)
            paths.append(path)
        }
        try FileManager.default.removeItem(atPath: first)
        return paths
    }

    private func uri(_ path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    static let images = "{'multiple': <true>, 'filters': <[('Images', [(uint32 1, 'image/*'), (uint32 0, '*.[jJ][pP][gG]')])]>}"

    // MARK: Through the portal, as an app asks

    func testAnAppGetsItsPicksInPickOrder() throws {
        let app = try client(["open", "OpenFile", "pick1", Self.images, "--title", "Three Photos"])
        let handle = try XCTUnwrap(app.next()?["handle"] as? String)
        let window = try findWindow("Three Photos")
        // Pick the first, second and third; unpick the second; confirm.
        try keys(window, ["space", "Right", "space", "Right", "space", "Left", "space", "ctrl+Return"])
        let answer = try XCTUnwrap(app.next(timeout: 20), "no Response")
        XCTAssertEqual(answer["path"] as? String, handle)
        XCTAssertEqual(answer["response"] as? Int, 0)
        let results = try XCTUnwrap(answer["results"] as? [String: Any])
        XCTAssertEqual(results["uris"] as? [String], [uri(photos[0]), uri(photos[2])])
        XCTAssertEqual((results["current_filter"] as? [Any])?.first as? String, "Images")
        try waitUntilGone(window)
        XCTAssertTrue(backendLogText().contains("for “”: the picker"), backendLogText())
    }

    func testCancelGivesTheAppItsCancel() throws {
        let app = try client(["open", "OpenFile", "cancel1", Self.images, "--title", "Cancel Me"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let window = try findWindow("Cancel Me")
        try keys(window, ["space", "Escape"])
        let answer = try XCTUnwrap(app.next(timeout: 20), "no Response")
        XCTAssertEqual(answer["response"] as? Int, 1)
        XCTAssertEqual((answer["results"] as? [String: Any])?["uris"] as? [String], [])
        try waitUntilGone(window)
    }

    /// The app closes its request: the window goes, and the app hears nothing more (the portal
    /// unexported the request).
    func testCloseClosesTheWindow() throws {
        let app = try client(["open", "OpenFile", "close1", Self.images, "--title", "Closed Soon", "--close-after", "3"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let window = try findWindow("Closed Soon")
        XCTAssertEqual(app.next(timeout: 10)?["closed"] as? Bool, true)
        try waitUntilGone(window)
        XCTAssertNil(app.next(timeout: 2), "a Response after Close")
    }

    /// An app that goes away (crashes, is killed) leaves no window behind.
    func testAnAppThatGoesAwayLeavesNoWindow() throws {
        let app = try client(["open", "OpenFile", "gone1", Self.images, "--title", "Orphan", "--exit-after", "3"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let window = try findWindow("Orphan")
        XCTAssertEqual(app.next(timeout: 10)?["gone"] as? Bool, true)
        try waitUntilGone(window)
    }

    func testTwoAppsAtOnceGetTheirOwnWindowsAndAnswers() throws {
        let first = try client(["open", "OpenFile", "both1", Self.images, "--title", "First App"])
        let second = try client(["open", "OpenFile", "both2", Self.images, "--title", "Second App"])
        _ = try XCTUnwrap(first.next()?["handle"] as? String)
        _ = try XCTUnwrap(second.next()?["handle"] as? String)
        let firstWindow = try findWindow("First App"), secondWindow = try findWindow("Second App")
        XCTAssertNotEqual(firstWindow, secondWindow)
        // With the pointer, as a person with two windows on one screen does: the second one
        // raised (no window manager stacks them), its second photo clicked, then Add.
        try waitForPhotos(secondWindow)
        try display.click(x: 210, y: 120)
        usleep(300_000)
        try display.click(x: 916, y: 27)
        let secondAnswer = try XCTUnwrap(second.next(timeout: 20), "the first app heard: \(first.next(timeout: 1) ?? [:])")
        XCTAssertEqual((secondAnswer["results"] as? [String: Any])?["uris"] as? [String], [uri(photos[1])])
        try waitUntilGone(secondWindow)
        try waitForPhotos(firstWindow)
        try display.click(x: 52, y: 27)
        XCTAssertEqual(first.next(timeout: 20)?["response"] as? Int, 1)
    }

    /// Saving is not a photo picker's question: the GTK backend's dialog answers it (relayed with
    /// the same handle), and its answer reaches the app.
    func testSavingGoesToTheDesktopsChooser() throws {
        let app = try client(["open", "SaveFile", "save1", "{'current_name': <'notes.txt'>}", "--title", "Save Notes"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let dialog = try findWindow("Save Notes")
        try keys(dialog, ["Escape"])
        let answer = try XCTUnwrap(app.next(timeout: 20), "no Response")
        // (xdg-desktop-portal-gtk 1.14 answers Escape with 2, which is passed on as it is.)
        XCTAssertEqual(answer["response"] as? Int, 2)
        try waitUntilGone(dialog)
        XCTAssertTrue(backendLogText().contains("SaveFile"), backendLogText())
    }

    func testClosingASaveClosesTheDesktopsDialog() throws {
        let closing = try client(["open", "SaveFile", "save2", "{'current_name': <'notes.txt'>}", "--title", "Save Then Close", "--close-after", "4"])
        _ = try XCTUnwrap(closing.next()?["handle"] as? String)
        let second = try findWindow("Save Then Close")
        // (No Response before it: the app closed the request.)
        let next = closing.next(timeout: 15)
        XCTAssertEqual(next?["closed"] as? Bool, true, "\(next ?? [:])")
        try waitUntilGone(second)
    }

    /// Without another backend on the bus (GTK's is not installed), what Photopick does not answer
    /// is answered 2, with the reason in its log.
    func testSavingWithNoOtherChooserIsAnsweredWithTheReason() throws {
        let app = try client(["impl", "SaveFile", "/org/freedesktop/portal/desktop/request/1_1/nosave", "{'current_name': <'notes.txt'>}", "--title", "Nowhere"])
        let answer = try XCTUnwrap(app.next(timeout: 20))
        XCTAssertEqual(answer["response"] as? Int, 2, "\(answer)")
        XCTAssertTrue(backendLogText().contains("no other FileChooser backend on the bus to answer SaveFile"), backendLogText())
        XCTAssertTrue(try backendIsRunning())
    }

    /// A question of any file (no filter, or "All files" among them) goes to the desktop's chooser.
    func testAnyFileGoesToTheDesktopsChooser() throws {
        let options = "{'filters': <[('Images', [(uint32 1, 'image/*')]), ('All files', [(uint32 0, '*')])]>}"
        let app = try client(["open", "OpenFile", "any1", options, "--title", "Any File"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let dialog = try findWindow("Any File")
        XCTAssertTrue(backendLogText().contains("admits other files (*)"), backendLogText())
        try keys(dialog, ["Escape"])
        XCTAssertNotNil(app.next(timeout: 20)?["response"])
    }

    // MARK: GTK apps, through GTK's own portal code

    /// A GTK 4 app's GtkFileChooserNative (GDK_DEBUG=portals makes GTK 4.8 use the portal): the
    /// picker is a dialog over the app's window, and the app gets the two photos left picked.
    func testAGTK4AppGetsItsPhotos() throws {
        let app = try gtkApp(4)
        let window = try findWindow("Attach Photos")
        let host = try XCTUnwrap(try visibleWindows("Host App").first)
        let hints = String(decoding: try TestSupport.run("/usr/bin/xprop", ["-display", display.name, "-id", window, "WM_TRANSIENT_FOR", "_NET_WM_WINDOW_TYPE"]).output, as: UTF8.self)
        XCTAssertTrue(hints.contains(String(format: "window id # 0x%x", Int(host) ?? -1)), "\(hints) (host \(host))")
        XCTAssertTrue(hints.contains("_NET_WM_WINDOW_TYPE_DIALOG"), hints)
        try keys(window, ["space", "Right", "space", "Right", "space", "Left", "space", "ctrl+Return"])
        let answer = try XCTUnwrap(app.next(timeout: 20), "the app heard nothing")
        XCTAssertEqual(answer["response"] as? String, "accept")
        // GTK 4.8.3 and 3.24.38 reverse the portal's list (fixed in 4.12.5 and 3.24.39): the
        // backend answers in pick order, the app sees the last pick first.
        XCTAssertEqual(answer["files"] as? [String], [photos[2], photos[0]])
    }

    func testAGTK3AppGetsItsPhotosAndItsCancel() throws {
        let app = try gtkApp(3)
        let window = try findWindow("Attach Photos")
        try keys(window, ["space", "Right", "space", "Right", "space", "Left", "space", "ctrl+Return"])
        let answer = try XCTUnwrap(app.next(timeout: 20), "the app heard nothing")
        XCTAssertEqual(answer["response"] as? String, "accept")
        XCTAssertEqual(answer["files"] as? [String], [photos[2], photos[0]])

        let again = try gtkApp(3, title: "Attach Again")
        try keys(try findWindow("Attach Again"), ["space", "Escape"])
        let cancelled = try XCTUnwrap(again.next(timeout: 20), "the app heard nothing")
        XCTAssertEqual(cancelled["response"] as? String, "cancel")
        XCTAssertEqual(cancelled["files"] as? [String], [])
    }

    // MARK: Straight to the backend, as the portal calls it

    /// What only the backend's own answer shows (the portal keeps `uris`, `choices` and
    /// `current_filter`): `writable` is false, and the choices come back with their values.
    func testTheAnswerIsReadOnlyAndEchoesTheChoices() throws {
        let options = "{'multiple': <false>, 'filters': <[('Photos', [(uint32 1, 'image/jpeg')])]>, 'choices': <[('size', 'Size', [('s', 'Small'), ('l', 'Large')], 'l'), ('strip', 'Remove location', @a(ss) [], 'true')]>}"
        let app = try client(["impl", "OpenFile", "/org/freedesktop/portal/desktop/request/1_1/direct", options, "--title", "Direct Call"])
        let window = try findWindow("Direct Call")
        try keys(window, ["Right", "space", "ctrl+Return"])
        let answer = try XCTUnwrap(app.next(timeout: 20))
        XCTAssertEqual(answer["response"] as? Int, 0)
        let results = try XCTUnwrap(answer["results"] as? [String: Any])
        XCTAssertEqual(results["uris"] as? [String], [uri(photos[1])])
        XCTAssertEqual(results["writable"] as? Bool, false)
        let choices = (results["choices"] as? [[String]]) ?? []
        XCTAssertEqual(choices, [["size", "l"], ["strip", "true"]])
    }

    /// A Close sent right behind its call, before the backend handled the call
    /// (xdg-desktop-portal#854): the Close succeeds, the call is answered 2, no window stays.
    func testACloseRightBehindItsCallClosesIt() throws {
        for round in 0..<5 {
            let app = try client(["impl", "OpenFile", "/org/freedesktop/portal/desktop/request/1_1/early\(round)", Self.images,
                                  "--title", "Early Close", "--close-at-once"])
            var events: [[String: Any]] = []
            while events.count < 2, let event = app.next(timeout: 20) { events.append(event) }
            XCTAssertTrue(events.contains { $0["close"] as? String == "ok" }, "\(events)")
            XCTAssertTrue(events.contains { $0["response"] as? Int == 2 }, "\(events)")
        }
        usleep(500_000)
        XCTAssertEqual(try visibleWindows("Early Close"), [])
    }

    /// Bad calls are answered (2, the reason logged), never crash the backend, never leave a
    /// window nobody answers.
    func testBadCallsAreAnsweredAndLogged() throws {
        let handle = "/org/freedesktop/portal/desktop/request/1_1/bad"
        let bad: [(options: String, logged: String)] = [
            ("{'multiple': <'yes'>}", "option “multiple” is of type s, not b"),
            ("{'filters': <[('Odd', [(uint32 7, 'x')])]>}", "rule kind 7"),
            ("{'filters': <[('Empty', [(uint32 0, '')])]>}", "has an empty rule"),
            ("{'filters': <[('', [(uint32 1, 'image/*')])]>}", "a filter without a name"),
            ("{'filters': <" + "[" + (0..<1000).map { "('F\($0)', [(uint32 1, 'image/png')])" }.joined(separator: ", ") + "]>}", "1000 filters"),
            ("{'choices': <[('c', 'C', @a(ss) [], 'maybe')]>}", "is not true or false"),
        ]
        for (index, call) in bad.enumerated() {
            let app = try client(["impl", "OpenFile", "\(handle)\(index)", call.options, "--title", "Bad Call"])
            let answer = try XCTUnwrap(app.next(timeout: 20), call.options)
            XCTAssertEqual(answer["response"] as? Int, 2, "\(call.options): \(answer)")
            XCTAssertTrue(backendLogText().contains(call.logged), "\(call.logged) not in: \(backendLogText())")
        }
        // A Close for a request that does not exist is an error for the caller, nothing more.
        let stray = try client(["impl", "OpenFile", "\(handle)unused", "{'multiple': <'no'>}", "--close-at-once"])
        var events: [[String: Any]] = []
        while events.count < 2, let event = stray.next(timeout: 20) { events.append(event) }
        XCTAssertTrue(events.contains { $0["close"] as? String == "error" || $0["close"] as? String == "ok" }, "\(events)")
        XCTAssertEqual(try visibleWindows("Bad Call"), [])

        // Odd but answerable: a parent that is no window, a 100 KB title, an app id with slashes.
        let title = String(repeating: "Long Title ", count: 10_000)
        let odd = try client(["impl", "OpenFile", "\(handle)odd", Self.images, "--title", title, "--parent", "x11:zz", "--app-id", "../../etc/passwd"])
        let window = try findWindow("Long Title Long")
        try keys(window, ["Escape"])
        XCTAssertEqual(odd.next(timeout: 20)?["response"] as? Int, 1)
        XCTAssertTrue(backendLogText().contains("is neither x11: nor wayland:"), backendLogText())
        // A hexadecimal parent that is no window: the hint names nothing, the window shows all the same.
        let orphan = try client(["impl", "OpenFile", "\(handle)nowindow", Self.images, "--title", "No Such Parent", "--parent", "x11:1fffff"])
        try keys(try findWindow("No Such Parent"), ["Escape"])
        XCTAssertEqual(orphan.next(timeout: 20)?["response"] as? Int, 1)
    }

    // MARK: Its process

    /// One process serves every call, exits once idle (a minute; two seconds here), and the
    /// next call starts it again.
    func testTheBackendExitsWhenIdleAndComesBackWhenAsked() throws {
        let first = try client(["open", "OpenFile", "idle1", Self.images, "--title", "Before Idle"])
        _ = try XCTUnwrap(first.next()?["handle"] as? String)
        XCTAssertTrue(try backendIsRunning())
        try keys(try findWindow("Before Idle"), ["Escape"])
        XCTAssertEqual(first.next(timeout: 20)?["response"] as? Int, 1)
        let deadline = Date().addingTimeInterval(10)
        while try backendIsRunning(), Date() < deadline { usleep(200_000) }
        XCTAssertFalse(try backendIsRunning(), "still running 10 s after its last answer")
        let second = try client(["open", "OpenFile", "idle2", Self.images, "--title", "After Idle"])
        _ = try XCTUnwrap(second.next()?["handle"] as? String)
        try keys(try findWindow("After Idle"), ["space", "ctrl+Return"])
        XCTAssertEqual((second.next(timeout: 20)?["results"] as? [String: Any])?["uris"] as? [String], [uri(photos[0])])
    }

    private func backendIsRunning() throws -> Bool {
        let reply = try TestSupport.run("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                               "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.impl.portal.desktop.photopick"])
        return String(decoding: reply.output, as: UTF8.self).contains("boolean true")
    }

    /// The index is damaged under a running backend (its file overwritten): the next question
    /// still gets a window whose pick answers it, or an answer with a reason; the backend lives on.
    func testAQuestionWhileTheIndexIsBrokenUnderIt() throws {
        let first = try client(["open", "OpenFile", "index1", Self.images, "--title", "Index Before"])
        _ = try XCTUnwrap(first.next()?["handle"] as? String)
        try keys(try findWindow("Index Before"), ["space", "ctrl+Return"])
        XCTAssertEqual((first.next(timeout: 20)?["results"] as? [String: Any])?["uris"] as? [String], [uri(photos[0])])
        let folder = home.appendingPathComponent("data/photopick")
        let index = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("index") && $0.hasSuffix(".sqlite") })
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: folder.appendingPathComponent(index))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix("-wal") || name.hasSuffix("-shm") {
            try Data(repeating: 0x5A, count: 4096).write(to: folder.appendingPathComponent(name))
        }
        let second = try client(["open", "OpenFile", "index2", Self.images, "--title", "Index After"])
        _ = try XCTUnwrap(second.next()?["handle"] as? String)
        let deadline = Date().addingTimeInterval(20)
        var answer: [String: Any]?
        while answer == nil, Date() < deadline {
            if let window = try visibleWindows("Index After").first {
                try waitForPhotos(window)
                try keys(window, ["space", "ctrl+Return"])
            }
            answer = second.next(timeout: 2)
        }
        let given = try XCTUnwrap(answer, "no answer; the backend said: \(backendLogText())")
        if given["response"] as? Int == 0 {
            XCTAssertEqual((given["results"] as? [String: Any])?["uris"] as? [String], [uri(photos[0])])
        } else {
            XCTAssertEqual(given["response"] as? Int, 2, "\(given)")
        }
        XCTAssertTrue(try backendIsRunning(), "the backend is gone; it said: \(backendLogText())")
    }

    /// A photo on another machine (a library folder reached over SFTP through gvfs) picked through
    /// the portal: the backend copies it first, and the app gets a local `file://` URI of the copy,
    /// whose bytes are the photo's.
    func testARemotePhotoIsAnsweredAsALocalCopy() throws {
        bus.stop()
        let remote = home.appendingPathComponent("remote-photos")
        try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
        // (Blue, so that no local photo has their bytes.)
        let remotePhotos = try Self.makePhotos(2, in: remote, newest: 1_750_000_000, colour: "rgb(40,80,210)")
        // The bus of the server (with its gvfs) is the session's: the portal, its backends and
        // ours are started on it, Photopick's from $XDG_DATA_HOME/dbus-1/services.
        let services = home.appendingPathComponent("data/dbus-1/services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: serviceFolder.appendingPathComponent("org.freedesktop.impl.portal.desktop.photopick.service"),
                                         to: services.appendingPathComponent("org.freedesktop.impl.portal.desktop.photopick.service"))
        var environment = busEnvironment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let server = try SFTPServer(environment: environment)
        defer { server.close() }
        let folders = home.appendingPathComponent(".config/photopick")
        try FileManager.default.createDirectory(at: folders, withIntermediateDirectories: true)
        try (server.uri(remote.path) + "\n").write(to: folders.appendingPathComponent("folders"), atomically: true, encoding: .utf8)
        let app = try PortalClient(["open", "OpenFile", "remote1", Self.images, "--title", "Remote Photo"],
                                   busAddress: server.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "", display: display.name, environment: server.environment)
        _ = try XCTUnwrap(app.next(timeout: 30)?["handle"] as? String)
        let window = try findWindow("Remote Photo", timeout: 30)
        // The newest photo is the remote one: picked, confirmed once its copy is here.
        try keys(window, ["space", "ctrl+Return"])
        let answer = try XCTUnwrap(app.next(timeout: 30), "no answer; the backend said: \(backendLogText())")
        let uris = try XCTUnwrap((answer["results"] as? [String: Any])?["uris"] as? [String])
        XCTAssertEqual(uris.count, 1)
        let local = try XCTUnwrap(uris.first.flatMap(URL.init(string:)))
        XCTAssertEqual(local.scheme, "file", "\(uris)")
        XCTAssertNotEqual(local.path, remotePhotos[0], "the answer is a copy, not the server's file")
        XCTAssertEqual(try Data(contentsOf: local), try Data(contentsOf: URL(fileURLWithPath: remotePhotos[0])))
        XCTAssertTrue(local.path.hasPrefix(home.appendingPathComponent("cache").path), "\(local.path) is not in the cache's copies")
    }

    // MARK: Per app

    /// portal.conf's rules: `always` gives an app the picker even with "All files" among its
    /// filters, `never` gives it the desktop's chooser for photos too.
    func testThePersonsRulesPerApp() throws {
        let rules = home.appendingPathComponent(".config/photopick")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "[apps]\norg.example.Chat=always\nhost=never\n".write(to: rules.appendingPathComponent("portal.conf"), atomically: true, encoding: .utf8)
        let withAll = "{'filters': <[('Images', [(uint32 1, 'image/*')]), ('All files', [(uint32 0, '*')])]>}"
        let chat = try client(["impl", "OpenFile", "/org/freedesktop/portal/desktop/request/1_1/chat", withAll, "--title", "Chat Photos", "--app-id", "org.example.Chat"])
        let window = try findWindow("Chat Photos")
        XCTAssertTrue(backendLogText().contains("for “org.example.Chat”: the picker"), backendLogText())
        try keys(window, ["space", "ctrl+Return"])
        XCTAssertEqual((chat.next(timeout: 20)?["results"] as? [String: Any])?["uris"] as? [String], [uri(photos[0])])

        let host = try client(["impl", "OpenFile", "/org/freedesktop/portal/desktop/request/1_1/host", Self.images, "--title", "Host Photos"])
        let dialog = try findWindow("Host Photos")
        XCTAssertTrue(backendLogText().contains("portal.conf says “never” for app “”"), backendLogText())
        try keys(dialog, ["Escape"])
        XCTAssertNotNil(host.next(timeout: 20)?["response"])
    }

    /// An app's next question opens on the album it last picked from; `current_folder` opens
    /// that folder's album; another app opens on Recents.
    func testAnAppComesBackToItsAlbum() throws {
        let trip = home.appendingPathComponent("Pictures/Trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        let older = try Self.makePhotos(3, in: trip, newest: 1_600_000_000)
        let indexed = try TestSupport.run(TestSupport.photopick, ["index"], environment: busEnvironment)
        XCTAssertEqual(indexed.status, 0, indexed.error)
        let request = "/org/freedesktop/portal/desktop/request/1_1/album"
        func pickFirst(_ options: String, app: String, _ round: Int) throws -> [String]? {
            let asked = try client(["impl", "OpenFile", "\(request)\(round)", options, "--title", "Album \(round)", "--app-id", app])
            try keys(try findWindow("Album \(round)"), ["space", "ctrl+Return"])
            return (asked.next(timeout: 20)?["results"] as? [String: Any])?["uris"] as? [String]
        }
        let inTrip = "{'filters': <[('Images', [(uint32 1, 'image/*')])]>, 'current_folder': <b'\(trip.path)'>}"
        let plain = "{'filters': <[('Images', [(uint32 1, 'image/*')])]>}"
        XCTAssertEqual(try pickFirst(inTrip, app: "org.example.Mail", 0), [uri(older[0])])
        XCTAssertEqual(try pickFirst(plain, app: "org.example.Mail", 1), [uri(older[0])])
        XCTAssertEqual(try pickFirst(plain, app: "org.example.Other", 2), [uri(photos[0])])
    }

    // MARK: On and off

    /// `photopick portal enable` on Debian's 1.16 under GNOME (where GNOME's and GTK's backends
    /// always win): exactly the files described, a portal started with them binds Photopick, and
    /// `status` says so; `disable` takes exactly those away, and the portal binds GTK's again.
    func testEnableAndDisableOnThePortalOf_Debian12() throws {
        bus.stop()
        let before = try files(under: home)
        var environment = busEnvironment
        environment["XDG_CURRENT_DESKTOP"] = "GNOME"
        environment.removeValue(forKey: "XDG_DESKTOP_PORTAL_DIR")
        let enabled = try TestSupport.run(TestSupport.photopick, ["portal", "enable", "--no-restart"], environment: environment)
        XCTAssertEqual(enabled.status, 0, enabled.error)
        let data = home.appendingPathComponent("data"), config = home.appendingPathComponent(".config")
        let folder = data.appendingPathComponent("photopick/portals")
        let dropIn = config.appendingPathComponent("systemd/user/xdg-desktop-portal.service.d/photopick.conf")
        let written = [folder.appendingPathComponent("photopick.portal"), folder.appendingPathComponent("gtk.portal"), dropIn].map(\.path)
        XCTAssertEqual(String(decoding: enabled.output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }, written)
        XCTAssertEqual(Set(try files(under: home)).subtracting(before),
                       Set(written + [data.appendingPathComponent("photopick/portal-enabled").path]))
        let ours = try String(contentsOf: folder.appendingPathComponent("photopick.portal"), encoding: .utf8)
        XCTAssertTrue(ours.contains("UseIn=gnome;photopick;"), ours)
        let theirs = try String(contentsOf: folder.appendingPathComponent("gtk.portal"), encoding: .utf8)
        let system = try String(contentsOfFile: "/usr/share/xdg-desktop-portal/portals/gtk.portal", encoding: .utf8)
        XCTAssertFalse(theirs.contains("FileChooser"), theirs)
        XCTAssertEqual(theirs, system.replacingOccurrences(of: "org.freedesktop.impl.portal.FileChooser;", with: ""))
        let unit = try String(contentsOf: dropIn, encoding: .utf8)
        XCTAssertTrue(unit.contains("[Service]\nEnvironment=XDG_DESKTOP_PORTAL_DIR=\(folder.path)\n"), unit)

        // The portal as systemd would start it with the drop-in.
        environment["XDG_DESKTOP_PORTAL_DIR"] = folder.path
        bus = try PrivateSessionBus(serviceFolder: serviceFolder, environment: environment)
        let app = try client(["open", "OpenFile", "on1", Self.images, "--title", "Enabled Picker"])
        _ = try XCTUnwrap(app.next()?["handle"] as? String)
        let window = try findWindow("Enabled Picker")
        XCTAssertTrue(backendLogText().contains("the picker"), backendLogText())
        let status = try TestSupport.run(TestSupport.photopick, ["portal", "status"], environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 })
        XCTAssertTrue(String(decoding: status.output, as: UTF8.self).contains("enabled\nThe running portal"), String(decoding: status.output, as: UTF8.self))
        XCTAssertTrue(String(decoding: status.output, as: UTF8.self).contains("uses for FileChooser: photopick\n"), String(decoding: status.output, as: UTF8.self))
        try keys(window, ["Escape"])
        XCTAssertEqual(app.next(timeout: 20)?["response"] as? Int, 1)
        bus.stop()

        environment.removeValue(forKey: "XDG_DESKTOP_PORTAL_DIR")
        let disabled = try TestSupport.run(TestSupport.photopick, ["portal", "disable", "--no-restart"], environment: environment)
        XCTAssertEqual(disabled.status, 0, disabled.error)
        XCTAssertEqual(String(decoding: disabled.output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }, written)
        XCTAssertEqual(try files(under: home).filter { !$0.hasPrefix(data.path + "/photopick/index") && !$0.hasPrefix(home.appendingPathComponent("cache").path) && $0 != backendLog.path },
                       before.filter { $0 != backendLog.path })
        bus = try PrivateSessionBus(serviceFolder: serviceFolder, environment: environment)
        let after = try client(["open", "OpenFile", "off1", Self.images, "--title", "Disabled Again"])
        _ = try XCTUnwrap(after.next()?["handle"] as? String)
        let dialog = try findWindow("Disabled Again")
        let statusAfter = String(decoding: try TestSupport.run(TestSupport.photopick, ["portal", "status"], environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }).output, as: UTF8.self)
        XCTAssertTrue(statusAfter.contains("not enabled"), statusAfter)
        XCTAssertTrue(statusAfter.contains("uses for FileChooser: gtk\n"), statusAfter)
        try keys(dialog, ["Escape"])
        XCTAssertNotNil(after.next(timeout: 20)?["response"])
    }

    /// Every file under a folder (the index and thumbnails a picker made aside).
    private func files(under folder: URL) throws -> [String] {
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var found: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { found.append(url.path) }
        }
        return found.sorted()
    }

    // MARK: Helpers

    private func backendLogText() -> String { (try? String(contentsOf: backendLog, encoding: .utf8)) ?? "" }

    private func client(_ arguments: [String]) throws -> PortalClient {
        try PortalClient(arguments, busAddress: bus.address, display: display.name)
    }

    /// Tests/Portal/gtk-chooser-client: a GTK `version` app that asks the portal for photos.
    private func gtkApp(_ version: Int, title: String = "Attach Photos") throws -> PortalClient {
        try PortalClient(["/usr/bin/python3", PortalBackendTestsClient.gtkApp, String(version), title], busAddress: bus.address, display: display.name,
                         environment: ["GDK_DEBUG": "portals", "GTK_USE_PORTAL": "1", "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory"])
    }

    /// The window titled `title` (a prefix of it), once it shows.
    private func findWindow(_ title: String, timeout: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let window = try visibleWindows(title).first {
                // Its first screen, and any other window that was coming.
                usleep(600_000)
                try display.waitUntilStill()
                return window
            }
            usleep(100_000)
        }
        XCTFail("no window “\(title)” after \(timeout) s; the backend said: \(backendLogText())")
        throw XCTSkip("no window")
    }

    private func visibleWindows(_ title: String) throws -> [String] {
        let found = (try? display.xdotool(["search", "--onlyvisible", "--name", "^" + NSRegularExpression.escapedPattern(for: title)])) ?? ""
        return found.split(separator: "\n").map(String.init)
    }

    /// Keys typed into `window` (raised and focused first; no window manager runs).
    private func keys(_ window: String, _ keys: [String]) throws {
        _ = try? display.xdotool(["windowraise", window])
        // (Until the focus stays there: a window still coming up takes the focus as it maps.)
        for _ in 0..<20 {
            _ = try? display.xdotool(["windowfocus", "--sync", window])
            usleep(150_000)
            if (try? display.xdotool(["getwindowfocus"]))?.trimmingCharacters(in: .whitespacesAndNewlines) == window { break }
        }
        for key in keys {
            _ = try display.xdotool(["key", key])
            usleep(120_000)
        }
    }

    /// Raises `window` and waits until it shows the photos (its first cell's orange), as a
    /// person waits to see them: of two pickers coming up at once on a first run, the one
    /// underneath may still be waiting for its first screen while the screen is still.
    private func waitForPhotos(_ window: String) throws {
        _ = try? display.xdotool(["windowraise", window])
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let pixel = try TestSupport.run("/usr/bin/import", ["-window", window, "-crop", "1x1+75+120", "+repage", "txt:-"], environment: ["DISPLAY": display.name])
            let text = String(decoding: pixel.output, as: UTF8.self)
            // ("0,0: (51400,30840,8224)  #C8C878782020  srgb(200,120,32)")
            if let match = text.range(of: #"srgb\([0-9]+,[0-9]+,[0-9]+"#, options: .regularExpression) {
                let rgb = text[match].dropFirst(5).split(separator: ",").compactMap { Int($0) }
                if rgb.count == 3, abs(rgb[0] - 200) < 30, abs(rgb[1] - 120) < 30, rgb[2] < 70 { return }
            }
            usleep(200_000)
        }
        XCTFail("window \(window) shows no photo after 15 s")
    }

    private func waitUntilGone(_ window: String, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let visible = (try? display.xdotool(["search", "--onlyvisible", "--name", "."])) ?? ""
            if !visible.split(separator: "\n").contains(Substring(window)) { return }
            usleep(100_000)
        }
        XCTFail("window \(window) still shows after \(timeout) s")
    }
}

/// Tests/Portal/portal-client running, and the JSON lines it prints.
final class PortalClient {
    private let process: Process
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(_ arguments: [String], busAddress: String, display: String?, environment extra: [String: String] = [:]) throws {
        process = TestProcesses.process("/usr/bin/python3", arguments.first == "/usr/bin/python3" ? Array(arguments.dropFirst()) : [PortalBackendTestsClient.path] + arguments)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        if let display {
            environment["DISPLAY"] = display
            environment.removeValue(forKey: "WAYLAND_DISPLAY")
        }
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        TestProcesses.adopt(process)
    }

    deinit { TestProcesses.stop(process) }

    /// Ends the client as an app that is killed ends (no Close: its connection goes).
    func stop() { TestProcesses.stop(process) }

    /// The next event, or nil after `timeout` seconds (or when the client ended).
    func next(timeout: TimeInterval = 20) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        let descriptor = output.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? ["unreadable": String(decoding: line, as: UTF8.self)]
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&poller, 1, Int32(min(left, 1) * 1000))
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}

enum PortalBackendTestsClient {
    static let path = TestSupport.packageRoot.appendingPathComponent("Tests/Portal/portal-client").path
    static let gtkApp = TestSupport.packageRoot.appendingPathComponent("Tests/Portal/gtk-chooser-client").path
}
