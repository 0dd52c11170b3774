// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@testable import PickerUI
import PhotopickApp
import TestSupport
import XCTest

/// libphotopick-1 as other programs use it (issue 21): installed by meson into a prefix, then
/// loaded into Python (PyGObject) and into a C program built with pkg-config, with nothing but
/// GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing into the prefix.
@MainActor
final class EmbeddingTests: XCTestCase, @unchecked Sendable {
    private var display: VirtualDisplay!
    private var work: URL!
    private var prefix: URL!
    private var library: URL!
    private var dataHome: URL!
    private var cacheHome: URL!
    private let python = "/usr/bin/python3"

    nonisolated override func setUpWithError() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/Xvfb", "/usr/bin/xdotool", "/usr/bin/meson", "/usr/bin/g-ir-scanner", "/usr/bin/cc", python]
            where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                throw XCTSkip("no \(tool)")
            }
            work = TestSupport.temporaryDirectory("embedding")
            prefix = work.appendingPathComponent("prefix")
            try install()
            library = work.appendingPathComponent("Photos")
            try makeLibrary()
            dataHome = TestSupport.temporaryDirectory("embedding-data")
            cacheHome = TestSupport.temporaryDirectory("embedding-cache")
            display = try VirtualDisplay()
        }
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            display = nil
            for folder in [work, dataHome, cacheHome].compactMap({ $0 }) { try? FileManager.default.removeItem(at: folder) }
        }
        super.tearDown()
    }

    /// meson setup and install with the library this test run built (SwiftPM's lock is held
    /// while tests run: meson cannot start another SwiftPM build).
    private func install() throws {
        let build = work.appendingPathComponent("build")
        // (The API reference and the .vapi only for the test that reads them: 3-4 s each time.)
        let extras = name.contains("Vapi") ? [] : ["-Ddocumentation=disabled", "-Dvapi=disabled"]
        let setup = try TestSupport.run("/usr/bin/meson", ["setup", build.path, TestSupport.packageRoot.path, "--prefix", prefix.path,
                                                           "--libdir", "lib", "-Dprebuilt=\(TestSupport.photopick)"] + extras, timeout: 120)
        XCTAssertEqual(setup.status, 0, String(decoding: setup.output, as: UTF8.self) + setup.error)
        let install = try TestSupport.run("/usr/bin/meson", ["install", "-C", build.path], timeout: 180)
        XCTAssertEqual(install.status, 0, String(decoding: install.output, as: UTF8.self) + install.error)
    }

    /// Five photos, p1 the oldest: Recents shows p5, p4, p3, p2, p1.
    private func makeLibrary() throws {
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for number in 1...5 {
            let path = library.appendingPathComponent("p\(number).jpg").path
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "400x300", "xc:hsl(\(number * 60),80%,50%)", path])
            XCTAssertEqual(made.status, 0, made.error)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 3600)],
                                                  ofItemAtPath: path)
        }
    }

    private func uri(_ number: Int) -> String { "file://" + library.appendingPathComponent("p\(number).jpg").path }

    /// Only the prefix: how a program finds the library, its typelib and (through the library's
    /// run path) the Swift runtime.
    private var prefixEnvironment: [String: String] {
        ["LD_LIBRARY_PATH": prefix.appendingPathComponent("lib").path,
         "GI_TYPELIB_PATH": prefix.appendingPathComponent("lib/girepository-1.0").path,
         "PKG_CONFIG_PATH": prefix.appendingPathComponent("lib/pkgconfig").path]
    }

    /// A Python host's script, `name`.py in the work folder: GTK and the Photopick typelib
    /// loaded, a main loop, a window titled `title` of that size (closing it ends the loop), then
    /// `body`, then the loop runs.
    private func pythonHost(_ name: String, title: String, width: Int, height: Int, _ body: String) throws -> URL {
        let script = work.appendingPathComponent("\(name).py")
        try ("""
            import glob, os, sys, time
            import gi
            gi.require_version("Gtk", "4.0")
            gi.require_version("Photopick", "1")
            from gi.repository import Gio, GLib, Gtk, Photopick
            Gtk.init()
            loop = GLib.MainLoop()
            window = Gtk.Window(title="\(title)")
            window.set_default_size(\(width), \(height))
            window.connect("close-request", lambda *_: loop.quit())

            """ + body + "\nloop.run()\n").write(to: script, atomically: true, encoding: .utf8)
        return script
    }

    /// Picks p5, p4 and p3 with the keyboard, unpicks p4, confirms.
    private func pickThreeUnpickTheSecondAndConfirm(in window: WindowProcess) throws {
        try window.keys("space", "Right", "space", "Right", "space", "Left", "space")
        usleep(300_000)
        try window.keys("ctrl+Return")
    }

    nonisolated func testPythonFindsEveryPropertySignalAndActionOfThePicker() throws {
        try MainActor.assumeIsolated {
            let script = """
                import gi
                gi.require_version("Gtk", "4.0")
                gi.require_version("Photopick", "1")
                from gi.repository import GObject, Gtk, Photopick
                print("version", Photopick.get_major_version(), Photopick.get_minor_version(), Photopick.get_micro_version())
                for spec in Photopick.Picker.list_properties():
                    if spec.owner_type.name == "PhotopickPicker":
                        writable = bool(spec.flags & GObject.ParamFlags.WRITABLE)
                        print("property", spec.name, spec.value_type.name, "rw" if writable else "r", getattr(spec, "default_value", None))
                for name in GObject.signal_list_names(Photopick.Picker):
                    print("signal", name)
                picker = Photopick.Picker(max_picks=3, library_folders=["\(library.path)"], show_camera=False)
                # Built once the host's setup is over (the main loop runs; the implementation loads
                # on a thread meanwhile), on the folders given: no index of the person's own
                # folders was opened.
                from gi.repository import GLib
                import time
                deadline = time.monotonic() + 20
                while picker.props.album is None and time.monotonic() < deadline:
                    GLib.MainContext.default().iteration(False)
                    time.sleep(0.005)
                import glob, os
                print("indexes", len(glob.glob(os.path.join(os.environ["XDG_DATA_HOME"], "photopick", "*.sqlite"))))
                notified = []
                picker.connect("notify::confirm-label", lambda *_: notified.append("confirm-label"))
                picker.props.confirm_label = "Send"
                print("notified", notified, picker.props.confirm_label, picker.props.max_picks, picker.props.picked_count)
                print("uris", picker.get_picked_uris())
                cancelled = []
                picker.connect("cancelled", lambda *_: cancelled.append(1))
                for name in ["confirm", "cancel", "zoom-in", "zoom-out", "choose-album", "preview", "take-photo", "location", "nonsense", "cancel-fetch", "retry-fetch"]:
                    print("action", name, picker.activate_action("picker." + name, None))
                print("cancelled", len(cancelled))
                albums = []
                picker.connect("notify::album", lambda *_: albums.append(picker.props.album))
                picker.props.album = "Favorites"
                chosen = picker.props.album
                picker.props.album = "No Such Album"
                print("albums", chosen, picker.props.album, len(albums) > 0)
                start, title, end = picker.get_header_widgets()
                print("header", type(start).__name__, type(title).__name__, type(end).__name__)
                controllers = picker.observe_controllers()
                for index in range(controllers.get_n_items()):
                    controller = controllers.get_item(index)
                    if isinstance(controller, Gtk.ShortcutController):
                        for item in range(controller.get_n_items()):
                            shortcut = controller.get_item(item)
                            print("shortcut", shortcut.get_action().to_string(), shortcut.get_trigger().to_string())
                """
            let environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: prefixEnvironment)
            let result = try TestSupport.run(python, ["-c", script], environment: environment, timeout: 60)
            XCTAssertEqual(result.status, 0, result.error)
            let lines = Set(String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init))
            let version = try XCTUnwrap(String(decoding: try TestSupport.run(TestSupport.photopick, ["--version"]).output, as: UTF8.self)
                .split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertTrue(lines.contains("version " + version.replacingOccurrences(of: ".", with: " ")), "\(lines)")
            for expected in ["property library-folders GStrv rw None", "property max-picks guint rw 0", "property mime-types GStrv rw None",
                             "property album gchararray rw None", "property show-camera gboolean rw True",
                             "property show-header gboolean rw True", "property confirm-label gchararray rw None",
                             "property picked-count guint r 0", "property name-patterns GStrv rw None",
                             "property picked-uris GStrv rw None", "property cancel-label gchararray rw None",
                             "property show-cancel gboolean rw True", "property title gchararray rw None",
                             "property enter-confirms gboolean rw False", "property accepts-typed-paths gboolean rw False",
                             "property cell-size guint rw 0", "property capture-folder gchararray rw None",
                             "property camera gchararray rw None", "property copy-remote-picks gboolean rw True",
                             "property date gchararray rw None",
                             "signal confirmed", "signal cancelled", "signal pick-copied",
                             "notified ['confirm-label'] Send 3 0", "uris []", "header Box Box Box", "cancelled 1",
                             "action nonsense False", "indexes 1",
                             // (A pick's copy's buttons are the view's own actions, not the widget's public ones.)
                             "action cancel-fetch False", "action retry-fetch False",
                             // (The album property says the album that is open: a name no album has is refused.)
                             "albums Favorites Favorites True"]
                // (Found, so True, though picker.location is off until accepts-typed-paths: GTK's
                // activate says whether the action exists.)
                + ["confirm", "cancel", "zoom-in", "zoom-out", "choose-album", "preview", "take-photo", "location"].map({ "action \($0) True" }) {
                XCTAssertTrue(lines.contains(expected), "\(expected) in \(lines.sorted())")
            }
            // The shell's actions and accelerators (C, so that a host that never makes a picker
            // loads no Swift) are the commands the program's window lists.
            let commands = PickerActions.commands().filter(\.isPickers)
            XCTAssertEqual(Set(commands.map(\.name)), Set(PickerCommands.all.map(\.name)))
            for command in commands { XCTAssertEqual(command.accelerators, PickerCommands.named(command.name)?.accelerators, command.name) }
            XCTAssertEqual(Set(lines.filter { $0.hasPrefix("shortcut ") }),
                           Set(commands.flatMap { command in command.accelerators.map { "shortcut action(picker.\(command.name)) \($0)" } }))
            XCTAssertFalse(result.error.contains("CRITICAL"), result.error)
            // What went wrong, for the host's developer: in GLib's log under the library's domain,
            // in a sentence with no command line in it (issue 38, point 3), not raw lines.
            XCTAssertTrue(result.error.contains("Photopick-Message") && result.error.contains("There is no album named “No Such Album”"), result.error)
            XCTAssertFalse(result.error.split(separator: "\n").contains { $0.hasPrefix("photopick: ") }, result.error)
            XCTAssertFalse(result.error.contains("photopick albums"), result.error)
        }
    }

    /// Properties a host sets from what it was given, at sizes no one means (issue 37): 10,000
    /// library folders are taken in a moment (they blocked the host for 10-14 s), a confirm label
    /// of a million characters is shown cut short (the host died: X BadAlloc), and 10,000 MIME
    /// types with one real among them filter as that one does (the grid was empty).
    nonisolated func testPropertiesOfAnySizeCostTheHostLittleAndKeepItAlive() throws {
        try MainActor.assumeIsolated {
            let script = """
                import sys, time
                import gi
                gi.require_version("Gtk", "4.0")
                gi.require_version("Photopick", "1")
                from gi.repository import GLib, Gtk, Photopick
                Gtk.init()
                window = Gtk.Window(default_width=800, default_height=600)
                folders = ["\(library.path)"] + ["/nonexistent/folder-%d" % index for index in range(9999)]
                started = time.monotonic()
                picker = Photopick.Picker(library_folders=folders, show_camera=False)
                print("folders %.2f" % (time.monotonic() - started))
                picker.props.confirm_label = "x" * 1000000
                picker.props.mime_types = ["application/x-noise-%d" % index for index in range(9999)] + ["image/jpeg"]
                window.set_child(picker)
                window.present()
                def grids(widget):
                    if isinstance(widget, Gtk.GridView): yield widget
                    child = widget.get_first_child()
                    while child is not None:
                        yield from grids(child)
                        child = child.get_next_sibling()
                def report():
                    counts = [grid.get_model().get_n_items() for grid in grids(window)]
                    print("items", max(counts) if counts else -1)
                    print("width", window.get_width())
                    loop.quit()
                    return False
                loop = GLib.MainLoop()
                GLib.timeout_add(4000, report)
                loop.run()
                print("alive")
                """
            let environment = display.pickerEnvironment(dataHome: dataHome, cacheHome: cacheHome, extra: prefixEnvironment)
            let result = try TestSupport.run(python, ["-c", script], environment: environment, timeout: 60)
            XCTAssertEqual(result.status, 0, result.error)
            let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
            XCTAssertTrue(lines.contains("alive"), "the host lives on: \(lines) \(result.error)")
            let seconds = try XCTUnwrap(lines.first { $0.hasPrefix("folders ") }.flatMap { Double($0.dropFirst(8)) })
            XCTAssertLessThan(seconds, 2, "10,000 folders")
            XCTAssertTrue(lines.contains("items 5"), "the five JPEGs of the library: \(lines)")
            let width = try XCTUnwrap(lines.first { $0.hasPrefix("width ") }.flatMap { Int($0.dropFirst(6)) })
            XCTAssertLessThan(width, 2000, "the window keeps a size a screen has")
            XCTAssertTrue(result.error.contains("The picker was given 10,000 folders: it shows the photos of the first 256"), result.error)
        }
    }

    nonisolated func testTheChatExampleAttachesThePicksInPickOrder() throws {
        try MainActor.assumeIsolated {
            let chat = TestSupport.packageRoot.appendingPathComponent("examples/chat.py").path
            let window = try WindowProcess(display: display, executable: python, arguments: [chat, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Chat")
            defer { window.stop() }
            usleep(500_000)  // the picker's first scan of five files
            try window.keys("alt+a")  // the attach button slides the picker up, focused
            usleep(700_000)
            try pickThreeUnpickTheSecondAndConfirm(in: window)
            usleep(800_000)
            // The sheet opens again on the same picks; Escape closes it and attaches nothing new.
            try window.keys("alt+a")
            usleep(500_000)
            try window.keys("Escape")
            usleep(500_000)
            let problems = window.problems
            let (_, lines) = window.finish(timeout: 0.5)
            XCTAssertEqual(lines, ["attached \(uri(5))", "attached \(uri(3))"], window.errorText)
            XCTAssertEqual(problems, "")
        }
    }

    /// A picker never takes the keys by itself (issue 38, point 1): the host's entry keeps them
    /// when the picker is first shown, when a GtkStack switches to its page and back, and when a
    /// GtkRevealer reveals it; typed text lands in the entry. The host hands it the keys with
    /// grab_focus, and then they are its own.
    nonisolated func testThePickerNeverTakesTheHostsKeysWhenShown() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("focus", title: "Focus", width: 900, height: 600, """
                box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                entry = Gtk.Entry()
                stack = Gtk.Stack(vexpand=True)
                stack.add_named(Gtk.Label(label="Messages"), "messages")
                stack.add_named(Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False), "picker")
                revealer = Gtk.Revealer(transition_duration=0)
                revealer.set_child(Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, height_request=200))
                for child in (entry, stack, revealer):
                    box.append(child)
                window.set_child(box)
                window.present()
                entry.grab_focus()
                def focus():
                    widget = window.get_focus()
                    while widget is not None and not isinstance(widget, (Gtk.Entry, Photopick.Picker)):
                        widget = widget.get_parent()
                    return type(widget).__name__ if widget is not None else "nothing"
                steps = [
                    lambda: stack.set_visible_child_name("picker"),
                    lambda: stack.set_visible_child_name("messages"),
                    lambda: stack.set_visible_child_name("picker"),
                    lambda: revealer.set_reveal_child(True),
                ]
                def step():
                    if steps:
                        steps.pop(0)()
                        GLib.timeout_add(400, lambda: (print("focus", focus(), flush=True), step())[1] or False)
                    else:
                        print("ready", flush=True)
                    return False
                GLib.timeout_add(1000, step)
                def finish(*_):
                    print("entry", entry.get_text(), flush=True)
                    stack.get_child_by_name("picker").grab_focus()
                    GLib.timeout_add(300, lambda: (print("after grab_focus", focus(), flush=True), loop.quit()) and False)
                keys = Gtk.EventControllerKey()
                keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
                keys.connect("key-pressed", lambda c, keyval, code, state: keyval == 0xffc6 and (finish(), True)[1])
                window.add_controller(keys)
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Focus")
            defer { window.stop() }
            usleep(3_500_000)  // the four steps
            try window.keys("h", "e", "l", "l", "o")
            usleep(300_000)
            try window.keys("F9")
            let (_, lines) = window.finish(timeout: 10)
            XCTAssertEqual(lines.filter { $0.hasPrefix("focus ") }, Array(repeating: "focus Entry", count: 4),
                           "the entry kept the keys through show, switch, switch back and reveal: \(lines) \(window.errorText)")
            XCTAssertTrue(lines.contains("entry hello"), "typed text landed in the entry: \(lines)")
            XCTAssertTrue(lines.contains("after grab_focus Picker"), "grab_focus hands the picker the keys: \(lines)")
        }
    }

    /// A chat app's window (issue 38, points 2 and 4): an entry above the picker, a button below,
    /// and application accelerators for Ctrl+Return (send), Escape (close) and Ctrl+O (open), as
    /// GNOME's chat and mail apps bind them. Tab goes from the entry through the picker's header
    /// row and grid to the button and round, Shift+Tab back the same way (the picker was a
    /// keyboard trap); in the entry the accelerators are the host's, in the picker its own.
    nonisolated func testTabLeavesThePickerBothWaysAndItsKeysAreItsOwnOnlyWhileItHasTheFocus() throws {
        try MainActor.assumeIsolated {
            let script = work.appendingPathComponent("keys.py")
            try """
                import sys
                import gi
                gi.require_version("Gtk", "4.0")
                gi.require_version("Photopick", "1")
                from gi.repository import Gio, GLib, Gtk, Photopick
                app = Gtk.Application(application_id="org.example.Chat", flags=Gio.ApplicationFlags.NON_UNIQUE)
                def where(window):
                    widget = window.get_focus()
                    while widget is not None:
                        if isinstance(widget, Gtk.Entry):
                            return "entry"
                        if widget.get_name() == "below":
                            return "below"
                        if isinstance(widget, Photopick.Picker):
                            return "picker"
                        widget = widget.get_parent()
                    return "nothing"
                def activate(app):
                    for name, accelerator in (("send", "<Control>Return"), ("close", "Escape"), ("open", "<Control>o")):
                        action = Gio.SimpleAction.new(name, None)
                        action.connect("activate", lambda action, parameter, name=name: print("host", name, flush=True))
                        app.add_action(action)
                        app.set_accels_for_action("app." + name, [accelerator])
                    window = Gtk.ApplicationWindow(application=app, title="Chat")
                    window.set_default_size(900, 700)
                    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                    entry = Gtk.Entry()
                    picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, vexpand=True)
                    picker.connect("confirmed", lambda picker, uris: print("picker confirmed", len(uris), flush=True))
                    picker.connect("cancelled", lambda picker: print("picker cancelled", flush=True))
                    for child in (entry, picker, Gtk.Button(label="Below", name="below")):
                        box.append(child)
                    window.set_child(box)
                    window.present()
                    entry.grab_focus()
                    keys = Gtk.EventControllerKey()
                    def released(controller, keyval, code, state):
                        if keyval in (0xff09, 0xfe20):  # Tab, Shift+Tab
                            GLib.idle_add(lambda: print("focus", where(window), flush=True) and False)
                        if keyval == 0xffc6:  # F9: the end
                            app.quit()
                    keys.connect("key-released", released)
                    keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
                    window.add_controller(keys)
                app.connect("activate", activate)
                app.run([])
                """.write(to: script, atomically: true, encoding: .utf8)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Chat")
            defer { window.stop() }
            usleep(1_500_000)
            // In the entry: the host's keys.
            try window.keys("ctrl+Return", "Escape", "ctrl+o")
            usleep(300_000)
            // Round the window and back.
            for _ in 0..<5 { try window.keys("Tab"); usleep(250_000) }
            for _ in 0..<5 { try window.keys("shift+Tab"); usleep(250_000) }
            // Into the grid (the header row's Cancel and album switcher first): the picker's keys.
            for _ in 0..<3 { try window.keys("Tab"); usleep(250_000) }
            try window.keys("space")
            usleep(300_000)
            try window.keys("ctrl+Return")
            usleep(300_000)
            try window.keys("Escape")
            usleep(300_000)
            try window.keys("F9")
            let (_, lines) = window.finish(timeout: 10)
            let host = lines.filter { $0.hasPrefix("host ") || $0.hasPrefix("picker ") }
            XCTAssertEqual(host, ["host send", "host close", "host open", "picker confirmed 1", "picker cancelled"],
                           "in the entry the keys are the host's, in the grid the picker's: \(lines) \(window.errorText)")
            let focus = lines.filter { $0.hasPrefix("focus ") }.map { $0.dropFirst("focus ".count) }
            XCTAssertEqual(Array(focus.prefix(10)), ["picker", "picker", "picker", "below", "entry",
                                                     "below", "picker", "picker", "picker", "entry"],
                           "Tab goes through the picker's Cancel, album switcher and grid to the button below and round; Shift+Tab back: \(lines)")
        }
    }

    /// A host that makes the picker with `new ()` and sets it up afterwards, as Vala's object
    /// initializers and much C code do (issue 38, points 10 and 11), with the folder as the `file://`
    /// URI a GtkFileChooser gives and a file chooser's name pattern: the picker shows that folder's
    /// matching photos and indexes nothing else (it had indexed the person's own folders first,
    /// and a `file://` folder showed nothing).
    nonisolated func testAPickerSetUpAfterNewShowsOnlyWhatItWasGivenFromAFileURI() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("setters", title: "Setters", width: 800, height: 600, """
                picker = Photopick.Picker()
                picker.props.library_folders = [Gio.File.new_for_path(sys.argv[1]).get_uri()]
                picker.props.show_camera = False
                picker.props.name_patterns = ["p[12].jpg"]
                def confirmed(picker, uris):
                    print("confirmed", " ".join(uris), flush=True)
                    indexes = sorted(os.path.basename(path) for path in glob.glob(os.path.join(os.environ["XDG_DATA_HOME"], "photopick", "*.sqlite")))
                    print("indexes", len(indexes), "default" if "index-default.sqlite" in indexes else "given", flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                window.set_child(picker)
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Setters")
            defer { window.stop() }
            usleep(1_500_000)
            // The first two photos of the grid, picked: p2 and p1 (newest first), not p5 and p4.
            try window.keys("space", "Right", "space")
            usleep(300_000)
            try window.keys("ctrl+Return")
            let (_, lines) = window.finish(timeout: 10)
            XCTAssertEqual(lines, ["confirmed \(uri(2)) \(uri(1))", "indexes 1 given"], window.errorText)
        }
    }

    /// Another set of folders given to a picker on screen (a host's folder setting changed) shows
    /// that library in the same picker (issue 38, point 14: the tree stays, its grid and picks
    /// are the new library's): the picks of the first go, the header widgets a host packed stay
    /// the same, and the keys pick and confirm in the new grid.
    nonisolated func testAnotherSetOfFoldersShowsItsPhotosInTheSamePicker() throws {
        try MainActor.assumeIsolated {
            let other = work.appendingPathComponent("Other")
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            for number in 1...2 {
                let made = try TestSupport.run("/usr/bin/convert", ["-size", "300x200", "xc:hsl(\(number * 90),60%,40%)",
                                                                     other.appendingPathComponent("q\(number).jpg").path])
                XCTAssertEqual(made.status, 0, made.error)
                try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 3600)],
                                                      ofItemAtPath: other.appendingPathComponent("q\(number).jpg").path)
            }
            let script = try pythonHost("refolder", title: "Refolder", width: 800, height: 600, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                before = picker.get_header_widgets()
                switched = []
                def after():
                    same = all(a is b for a, b in zip(before, picker.get_header_widgets()))
                    print("after", len(picker.props.picked_uris), "same header" if same else "other header", flush=True)
                    picker.grab_focus()
                    return False
                def switch():
                    picker.props.library_folders = [sys.argv[2]]
                    GLib.timeout_add(800, after)
                    return False
                def picked(picker, _):
                    print("picked", " ".join(picker.props.picked_uris), flush=True)
                    if not switched and len(picker.props.picked_uris) == 1:
                        switched.append(True)
                        GLib.idle_add(switch)
                picker.connect("notify::picked-uris", picked)
                def confirmed(picker, uris):
                    print("confirmed", " ".join(uris), flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                window.set_child(picker)
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path, other.path],
                                           dataHome: dataHome, cacheHome: cacheHome, environment: prefixEnvironment, title: "Refolder")
            defer { window.stop() }
            usleep(1_500_000)
            try window.keys("space")  // p5, the newest of the first folder
            usleep(2_500_000)
            try window.keys("space")  // q2, the newest of the other
            usleep(300_000)
            try window.keys("ctrl+Return")
            let (_, lines) = window.finish(timeout: 10)
            let q2 = "file://" + other.appendingPathComponent("q2.jpg").path
            XCTAssertEqual(lines.first, "picked \(uri(5))", window.errorText)
            XCTAssertTrue(lines.contains("after 0 same header"), "the first library's picks went, the header stayed: \(lines) \(window.errorText)")
            XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "picked" }, "the host heard the picks go: \(lines)")
            XCTAssertEqual(lines.last, "confirmed \(q2)", "the new library's photo picked and confirmed: \(lines) \(window.errorText)")
        }
    }

    /// What the grid says in each frame a person sees: nothing over a library with photos while
    /// its album is read, "Looking for Photos" while a first run looks, "No Photos Yet" only once
    /// an empty folder is known to be empty. (Its first frame said "No Photos Yet" over every
    /// library, first run or not, with the big title and icon that were a third of that frame.)
    nonisolated func testTheGridSaysNoPhotosYetOnlyOfAnEmptyFolder() throws {
        try MainActor.assumeIsolated {
            let empty = work.appendingPathComponent("Empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let script = try pythonHost("said", title: "Said", width: 800, height: 600, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                said = []
                def titles(widget, inside=False):
                    found = []
                    inside = inside or widget.get_css_name() == "statuspage"
                    if inside and isinstance(widget, Gtk.Label) and widget.has_css_class("title"):
                        found.append(widget.get_label())
                    child = widget.get_first_child()
                    while child:
                        if child.get_mapped():
                            found += titles(child, inside)
                        child = child.get_next_sibling()
                    return found
                def painted(clock):
                    now = "|".join(titles(picker))
                    if not said or said[-1] != now:
                        said.append(now)
                def realized(*_):
                    window.get_frame_clock().connect("after-paint", painted)
                window.connect("realize", realized)
                def end():
                    print("said " + ";".join(said), flush=True)
                    loop.quit()
                    return False
                GLib.timeout_add(2500, end)
                window.set_child(picker)
                window.present()
                """)
            // What was said, frame by frame (a change each), in the window of a run over `folder`.
            @MainActor func said(_ folder: URL) throws -> [String] {
                let window = try WindowProcess(display: display, executable: python, arguments: [script.path, folder.path],
                                               dataHome: dataHome, cacheHome: cacheHome, environment: prefixEnvironment, title: "Said")
                defer { window.stop() }
                let (_, lines) = window.finish(timeout: 20)
                guard let said = lines.first(where: { $0.hasPrefix("said ") }) else {
                    XCTFail("the host printed what the picker said: \(lines) \(window.errorText)")
                    return []
                }
                return said.dropFirst("said ".count).components(separatedBy: ";")
            }
            // The first run of five photos: nothing said, or that the picker looks, then the photos.
            let first = try said(library)
            XCTAssertEqual(first.last, "", "the photos shown: \(first)")
            XCTAssertEqual(Set(first).subtracting(["", "Looking for Photos"]), [], "\(first)")
            // The next run: nothing said at all.
            XCTAssertEqual(try said(library), [""])
            // An empty folder: the picker looks, then says it is empty.
            let emptySaid = try said(empty)
            XCTAssertEqual(emptySaid.last, "No Photos Yet", "\(emptySaid)")
            XCTAssertEqual(Set(emptySaid.dropLast()).subtracting(["", "Looking for Photos"]), [], "\(emptySaid)")
        }
    }

    /// A composer restores a draft's attachments and follows the picks as they are made (issue 38,
    /// point 8): `picked-uris` set at construction picks p3 and p1 again, in that order (a file
    /// that is not in the library is left out), on a first run, once the scan has found them; a
    /// pick made with the keyboard is notified at once and comes after them; confirmed gives the
    /// same three.
    nonisolated func testPickedURIsRestoreADraftAndFollowThePicks() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("draft", title: "Draft", width: 800, height: 600, """
                draft = [sys.argv[2], "file:///nowhere/gone.jpg", sys.argv[3]]
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, picked_uris=draft)
                picker.connect("notify::picked-uris", lambda picker, _: print("picked", " ".join(picker.props.picked_uris), flush=True))
                def confirmed(picker, uris):
                    print("confirmed", " ".join(uris), flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                window.set_child(picker)
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path, uri(3), uri(1)],
                                           dataHome: dataHome, cacheHome: cacheHome, environment: prefixEnvironment, title: "Draft")
            defer { window.stop() }
            usleep(2_000_000)
            try window.keys("space")  // p5, the newest
            usleep(400_000)
            try window.keys("ctrl+Return")
            let (_, lines) = window.finish(timeout: 10)
            let picked = lines.filter { $0.hasPrefix("picked ") }
            XCTAssertTrue(picked.contains("picked \(uri(3)) \(uri(1))"), "the draft's picks came back, in order: \(lines) \(window.errorText)")
            XCTAssertEqual(picked.last, "picked \(uri(3)) \(uri(1)) \(uri(5))", "the new pick was notified after them: \(lines)")
            XCTAssertEqual(lines.last, "confirmed \(uri(3)) \(uri(1)) \(uri(5))", window.errorText)
        }
    }

    /// What the photopick program's window sets on its picker, through the public API as any
    /// host would (issue 38, point 14): a title, a cancel label, no cancel button (Escape then
    /// cancels nothing), Enter confirming, a cell size that follows the zoom, the cursor put on a
    /// photo without the focus taken, a message said over the grid, and a typed path as the answer.
    nonisolated func testAProgramSetsUpThePickerAsThePhotopickWindowDoes() throws {
        try MainActor.assumeIsolated {
            let typed = work.appendingPathComponent("Elsewhere Not In The Library.png")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "8x8", "xc:red", typed.path]).status, 0)
            let script = try pythonHost("program", title: "Program", width: 800, height: 600, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, title="Attach to “Mail”",
                                          cancel_label="Back", enter_confirms=True, cell_size=200)
                entry = Gtk.Entry()
                box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                box.append(entry)
                box.append(picker)
                window.set_child(box)
                picker.connect("notify::cell-size", lambda picker, _: print("cell-size", picker.props.cell_size, flush=True))
                picker.connect("cancelled", lambda *_: print("cancelled", flush=True))
                answers = []
                def confirmed(picker, uris):
                    answers.append(list(uris))
                    print("confirmed", " ".join(uris), flush=True)
                    if len(answers) == 2:
                        loop.quit()
                picker.connect("confirmed", confirmed)
                def labels(widget):
                    found = []
                    child = widget.get_first_child()
                    while child is not None:
                        if isinstance(child, Gtk.Label) and child.get_mapped():
                            found.append(child.get_label())
                        found += labels(child)
                        child = child.get_next_sibling()
                    return found
                def report(when):
                    start, title, end = picker.get_header_widgets()
                    print("labels", when, "|".join(labels(start) + labels(title)), flush=True)
                    print("message shown", "The draft was saved" in labels(picker), flush=True)
                    # (GtkEntry's focus is its GtkText's.)
                    print("focus in entry", window.get_focus() is not None and window.get_focus().is_ancestor(entry), flush=True)
                    if when == "after":
                        picker.grab_focus()
                    return False
                def set_up(*_):
                    picker.props.show_cancel = False
                    picker.props.accepts_typed_paths = True
                    picker.show_message("The draft was saved")
                    picker.reveal_uri(sys.argv[2])
                    GLib.timeout_add(300, report, "after")
                    return False
                # F9 (the test's) says the header again: after the preview opened and closed.
                keys = Gtk.EventControllerKey(propagation_phase=Gtk.PropagationPhase.CAPTURE)
                keys.connect("key-pressed", lambda c, key, code, state: report("keyed") if key == 0xffc6 else False)
                window.add_controller(keys)
                window.present()
                entry.grab_focus()
                GLib.timeout_add(1200, report, "before")
                GLib.timeout_add(1500, set_up)
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path, uri(2)],
                                           dataHome: dataHome, cacheHome: cacheHome, environment: prefixEnvironment, title: "Program")
            defer { window.stop() }
            usleep(2_500_000)
            // The host's grab_focus lands on p2, where reveal_uri put the grid's cursor.
            // The preview, opened and closed, leaves no cancel button behind (issue 40, point 16:
            // the app from the menu showed one beside the window's ×).
            try window.keys("Escape", "alt+Return")
            usleep(500_000)
            try window.keys("Escape")
            usleep(300_000)
            try window.keys("F9", "ctrl+plus", "Return")
            usleep(500_000)
            try window.keys("ctrl+l")
            usleep(300_000)
            try display.xdotool(["type", "--delay", "20", typed.path])
            try window.keys("Return")
            let (_, lines) = window.finish(timeout: 15)
            XCTAssertTrue(lines.contains { $0.hasPrefix("labels before Back|Attach to “Mail”") }, "the cancel label, the title: \(lines)")
            XCTAssertTrue(lines.contains { $0.hasPrefix("labels after Attach to “Mail”") }, "no cancel button once show-cancel is off: \(lines)")
            XCTAssertTrue(lines.contains { $0.hasPrefix("labels keyed Attach to “Mail”") }, "nor after the preview: \(lines)")
            XCTAssertTrue(lines.contains("message shown True"), "\(lines)")
            XCTAssertTrue(lines.contains("focus in entry True"), "reveal_uri took the focus: \(lines)")
            XCTAssertFalse(lines.contains("cancelled"), "Escape cancelled a picker with no cancel button: \(lines)")
            XCTAssertTrue(lines.contains("cell-size 256"), "the zoom from 200 is in the property: \(lines)")
            XCTAssertTrue(lines.contains("confirmed \(uri(2))"), "Enter on the revealed photo confirmed it: \(lines) \(window.errorText)")
            XCTAssertTrue(lines.contains("confirmed file://" + typed.path.replacingOccurrences(of: " ", with: "%20")),
                          "the typed path is the answer: \(lines) \(window.errorText)")
            XCTAssertEqual(window.problems, "")
        }
    }

    /// File chooser filters as GtkFileChooser has them (filters, filter, add_filter): a drop-down
    /// of their names beside the confirm button, each showing only what its rules match (a
    /// pattern, a MIME type), the one in use followed both ways.
    nonisolated func testFiltersAsAFileChooserHasThemShowOnlyWhatTheyMatch() throws {
        try MainActor.assumeIsolated {
            let png = library.appendingPathComponent("drawing.png")
            XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "64x48", "xc:navy", png.path]).status, 0)
            // (The oldest: under no filter it would be last.)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: png.path)
            let script = try pythonHost("filters", title: "Filters", width: 800, height: 600, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                jpeg, drawings = Gtk.FileFilter(name="JPEG photos"), Gtk.FileFilter(name="Drawings")
                jpeg.add_pattern("*.jpg")
                drawings.add_mime_type("image/png")
                picker.add_filter(jpeg)
                picker.add_filter(drawings)
                print("in use", picker.props.filter.get_name(), picker.get_filters().get_n_items(), flush=True)
                window.set_child(picker)
                def confirmed(picker, uris):
                    print("confirmed", " ".join(uris), flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                def shown(*_):
                    start, title, end = picker.get_header_widgets()
                    child = end.get_first_child()
                    while child is not None and not isinstance(child, Gtk.DropDown):
                        child = child.get_next_sibling()
                    print("drop-down", child is not None and child.get_mapped() and child.get_selected_item().get_name(), flush=True)
                    return False
                def switch(*_):
                    picker.props.filter = drawings
                    GLib.timeout_add(300, shown)
                    GLib.timeout_add(400, lambda *_: picker.grab_focus() and False)
                    return False
                # (The host switches once the first photo is picked.)
                picker.connect("notify::picked-count", lambda *_: picker.props.picked_count == 1 and picker.props.filter == jpeg and GLib.timeout_add(100, switch))
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path],
                                           dataHome: dataHome, cacheHome: cacheHome, environment: prefixEnvironment, title: "Filters")
            defer { window.stop() }
            usleep(1_500_000)
            try window.keys("space")  // the newest JPEG, p5
            usleep(1_500_000)  // (the host switches, then gives the picker the focus)
            try window.keys("space", "ctrl+Return")  // the one drawing, alone under its filter
            let (_, lines) = window.finish(timeout: 15)
            XCTAssertTrue(lines.contains("in use JPEG photos 2"), "the first filter added is the one in use: \(lines)")
            XCTAssertTrue(lines.contains("drop-down Drawings"), "the drop-down shows the filter in use: \(lines)")
            XCTAssertEqual(lines.last, "confirmed \(uri(5)) file://\(png.path)", "\(lines) \(window.errorText)")
            XCTAssertEqual(window.problems, "")
        }
    }

    /// A photo on another machine is in `picked-uris` by its own location the moment it is
    /// picked, and `pick-copied` says when its local copy lands (issue 38, points 8 and 9): the
    /// copy keeps the photo's name ("Strand & Meer #1.jpg", which arrived escaped), and its URI is
    /// escaped once.
    nonisolated func testARemotePickIsThereAtOnceAndItsCopyKeepsItsName() throws {
        try MainActor.assumeIsolated {
            let server = try SFTPServer()
            defer { server.close() }
            let photos = work.appendingPathComponent("remote")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            let name = "Strand & Meer #1.jpg"
            let made = try TestSupport.run("/usr/bin/convert", ["-size", "1600x1200", "plasma:", "-quality", "95", photos.appendingPathComponent(name).path])
            XCTAssertEqual(made.status, 0, made.error)
            let script = try pythonHost("remote", title: "Remote", width: 800, height: 500, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                picker.connect("notify::picked-uris", lambda picker, _: print("picked", " ".join(picker.props.picked_uris), flush=True))
                def copied(picker, uri, copy):
                    path = GLib.filename_from_uri(copy)[0]
                    print("copied", uri, os.path.basename(path), os.path.exists(path), flush=True)
                picker.connect("pick-copied", copied)
                def confirmed(picker, uris):
                    print("confirmed", " ".join(os.path.basename(GLib.filename_from_uri(uri)[0]) for uri in uris), flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                window.set_child(picker)
                window.present()
                picker.grab_focus()
                """)
            let location = server.uri(photos.path)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, location],
                                           dataHome: dataHome, cacheHome: cacheHome,
                                           environment: prefixEnvironment.merging(server.environment) { $1 }, title: "Remote")
            defer { window.stop() }
            let deadline = Date().addingTimeInterval(30)
            while server.bytesRead()[photos.appendingPathComponent(name).path] == nil, Date() < deadline { usleep(200_000) }
            usleep(500_000)
            try window.keys("space")
            usleep(3_000_000)
            try window.keys("ctrl+Return")
            let (_, lines) = window.finish(timeout: 20)
            let remoteURI = location + "/Strand%20&%20Meer%20%231.jpg"
            XCTAssertEqual(lines.first, "picked \(remoteURI)", "the pick is there at once, by its location: \(lines) \(window.errorText)")
            XCTAssertTrue(lines.contains("copied \(remoteURI) \(name) True"), "its copy landed, under the photo's own name: \(lines)")
            XCTAssertEqual(lines.last, "confirmed \(name)", "\(lines)")
        }
    }

    /// A plain GTK 4 host that prefers the dark style, with labels of its own that happen to have
    /// the picker's style classes (issue 38, point 3): making and showing a picker changes
    /// neither its theme nor its dark preference (adw_init () had switched it to libadwaita's light
    /// style) nor how its labels look (the picker's rules were display-wide, unscoped).
    nonisolated func testAPlainGTKHostKeepsItsThemeItsDarkStyleAndItsOwnLabels() throws {
        try MainActor.assumeIsolated {
            let script = work.appendingPathComponent("plain.py")
            try """
                import sys
                import gi
                gi.require_version("Gtk", "4.0")
                gi.require_version("Photopick", "1")
                from gi.repository import GLib, Gtk, Photopick
                Gtk.init()
                settings = Gtk.Settings.get_default()
                settings.props.gtk_application_prefer_dark_theme = True
                theme = settings.props.gtk_theme_name
                loop = GLib.MainLoop()
                window = Gtk.Window(title="Plain")
                window.set_default_size(800, 600)
                box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
                classes = ["preview", "problem", "duration", "favorite", "remote", "shutter", "cell", "picked-strip", "status-icon", "capture"]
                labels = [Gtk.Label(label=name, css_classes=[name]) for name in classes]
                for label in labels:
                    box.append(label)
                window.set_child(box)
                window.present()
                def look():
                    return [(label.measure(Gtk.Orientation.HORIZONTAL, -1)[1], label.measure(Gtk.Orientation.VERTICAL, -1)[1],
                             label.get_style_context().get_color().to_string()) for label in labels]
                before = []
                def add():
                    before.extend(look())
                    picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, vexpand=True)
                    box.append(picker)
                    picker.grab_focus()
                    GLib.timeout_add(2500, check)
                    return False
                def check():
                    after = look()
                    print("labels", "same" if after == before else "changed %s %s" % (before, after), flush=True)
                    print("dark", settings.props.gtk_application_prefer_dark_theme, flush=True)
                    print("theme", "same" if settings.props.gtk_theme_name == theme else settings.props.gtk_theme_name, flush=True)
                    loop.quit()
                    return False
                GLib.timeout_add(800, add)
                loop.run()
                """.write(to: script, atomically: true, encoding: .utf8)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Plain")
            defer { window.stop() }
            let (_, lines) = window.finish(timeout: 20)
            XCTAssertEqual(lines, ["labels same", "dark True", "theme same"], window.errorText)
            XCTAssertFalse(window.errorText.contains("Theme parser"), "the picker's style sheet parses: \(window.errorText)")
        }
    }

    /// A program that wants the picker as a dialog, as GtkFileDialog shows a file chooser (issue
    /// 38, point 13): `dialog_open` shows it over the program's window on the person's Pictures,
    /// `dialog_open_finish` gives the picks in pick order; Escape dismisses it (G_IO_ERROR_CANCELLED),
    /// and so does the program's cancellable.
    nonisolated func testTheDialogGivesThePicksAndIsDismissedByEscapeOrTheCancellable() throws {
        try MainActor.assumeIsolated {
            let home = work.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: library, to: home.appendingPathComponent("Pictures"))
            let pictures = home.appendingPathComponent("Pictures").path
            let script = try pythonHost("dialog", title: "Host", width: 400, height: 300, """
                window.present()
                def done(source, result):
                    try:
                        uris = Photopick.Picker.dialog_open_finish(result)
                        print("picked", " ".join(GLib.filename_from_uri(uri)[0].rsplit("/", 1)[1] for uri in uris), flush=True)
                    except GLib.Error as error:
                        print("dismissed", error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED), flush=True)
                cancellable = Gio.Cancellable()
                def key(controller, keyval, code, state):
                    if keyval == 0xffc5:  # F8: the dialog
                        Photopick.Picker.dialog_open(window, None, done)
                    elif keyval == 0xffc6:  # F9: the dialog, cancelled by the program a second later
                        Photopick.Picker.dialog_open(window, cancellable, done)
                        GLib.timeout_add(1000, lambda: cancellable.cancel() or False)
                    elif keyval == 0xffc7:  # F10: the end
                        GLib.timeout_add(200, lambda: loop.quit() or False)
                    return False
                keys = Gtk.EventControllerKey()
                keys.connect("key-pressed", key)
                window.add_controller(keys)
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment.merging(["HOME": home.path]) { $1 }, title: "Host")
            defer { window.stop() }
            let display = self.display!
            func focusDialog() throws {
                let found = try display.xdotool(["search", "--sync", "--onlyvisible", "--name", "Pick Photos"])
                let dialog = try XCTUnwrap(found.split(separator: "\n").first.map(String.init), "the dialog is shown")
                try display.xdotool(["windowfocus", "--sync", dialog])
                usleep(1_500_000)
            }
            func focusHost() throws {
                usleep(500_000)
                try display.xdotool(["windowfocus", "--sync", window.windowID])
                usleep(200_000)
            }
            try window.keys("F8")
            try focusDialog()
            try window.keys("space", "Right", "space")
            usleep(300_000)
            try window.keys("ctrl+Return")
            try focusHost()
            try window.keys("F8")
            try focusDialog()
            try window.keys("Escape")
            try focusHost()
            try window.keys("F9")
            usleep(2_000_000)
            try focusHost()
            try window.keys("F10")
            let (_, lines) = window.finish(timeout: 10)
            XCTAssertEqual(lines, ["picked p5.jpg p4.jpg", "dismissed True", "dismissed True"], window.errorText)
            XCTAssertTrue(FileManager.default.fileExists(atPath: pictures))
            let visible = try? display.xdotool(["search", "--onlyvisible", "--name", "Pick Photos"])
            XCTAssertEqual(visible?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "", "", "no dialog is left on screen")
        }
    }

    /// The embedded picker with nothing to show says what the program's window says, and offers
    /// Choose Folder… unless the host turns it off (issue 38, point 12): with no Pictures folder it
    /// said "There are no photos or videos in ." with no button, and a missing folder the host gave
    /// offered no way on.
    nonisolated func testAnEmptyPickerSaysWhyAndOffersChooseFolderUnlessTheHostSaysNo() throws {
        try MainActor.assumeIsolated {
            let home = work.appendingPathComponent("empty-home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let script = try pythonHost("empty", title: "Empty", width: 900, height: 500, """
                box = Gtk.Box(homogeneous=True)
                own = Photopick.Picker(show_camera=False)
                gone = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                for picker in (own, gone):
                    box.append(picker)
                window.set_child(box)
                window.present()
                def shown(picker):
                    texts, widget = [], picker
                    def walk(widget):
                        if not widget.get_mapped():
                            return
                        if isinstance(widget, Gtk.Label) and widget.get_text():
                            texts.append(widget.get_text())
                        child = widget.get_first_child()
                        while child is not None:
                            walk(child)
                            child = child.get_next_sibling()
                    walk(picker)
                    return texts
                def first():
                    print("own", shown(own), flush=True)
                    print("gone", shown(gone), flush=True)
                    own.props.show_choose_folder = False
                    GLib.timeout_add(300, second)
                    return False
                def second():
                    print("own without", shown(own), flush=True)
                    loop.quit()
                    return False
                GLib.timeout_add(2000, first)
                """)
            let missing = work.appendingPathComponent("Holidays 2019").path
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, missing], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment.merging(["HOME": home.path]) { $1 }, title: "Empty")
            defer { window.stop() }
            let (_, lines) = window.finish(timeout: 20)
            let own = try XCTUnwrap(lines.first { $0.hasPrefix("own [") }, "\(lines) \(window.errorText)")
            XCTAssertTrue(own.contains("'No Pictures Folder'") && own.contains("'Choose the folder where your photos are.'") && own.contains("Choose Folder…"), own)
            XCTAssertFalse(own.contains("There are no photos or videos in ."), own)
            let gone = try XCTUnwrap(lines.first { $0.hasPrefix("gone [") }, "\(lines)")
            XCTAssertTrue(gone.contains("'No Holidays 2019 Folder'") && gone.contains("Choose Folder…"), gone)
            let without = try XCTUnwrap(lines.first { $0.hasPrefix("own without") }, "\(lines)")
            XCTAssertTrue(without.contains("'No Pictures Folder'") && !without.contains("Choose Folder…"), without)
        }
    }

    /// What a picker started ends with the last picker (issue 38, point 5): after a first run's
    /// picker is shown and destroyed, no child process is left (two decode workers stayed, and a
    /// metadata worker as a zombie) and the threads are back to a few more than before; two hundred
    /// create/show/destroy cycles leave the host's memory flat.
    nonisolated func testDestroyingTheLastPickerLeavesNoProcessAndTwoHundredCyclesLeaveMemoryFlat() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("cycles", title: "Cycles", width: 800, height: 600, """
                def children():
                    out = os.popen("ps -o stat=,comm= --ppid %d" % os.getpid()).read().split("\\n")
                    return sorted(line.split()[1] + ("(zombie)" if line.split()[0].startswith("Z") else "")
                                  for line in out if line.strip() and not line.split()[1] in ("ps", "sh"))
                def threads():
                    return len(os.listdir("/proc/self/task"))
                def rss():
                    return int([line for line in open("/proc/self/status") if line.startswith("VmRSS")][0].split()[1])
                context = GLib.MainContext.default()
                def spin(seconds):
                    end = time.monotonic() + seconds
                    while time.monotonic() < end:
                        context.iteration(False)
                        time.sleep(0.002)
                window.present()
                spin(0.5)
                before = threads()
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                window.set_child(picker)
                spin(3)
                print("shown", " ".join(children()), flush=True)
                window.set_child(None)
                del picker
                spin(1.5)
                print("after", " ".join(children()) or "none", flush=True)
                print("threads", before, threads(), flush=True)
                sizes = {}
                for cycle in range(1, 201):
                    picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                    window.set_child(picker)
                    spin(0.05)
                    window.set_child(None)
                    del picker
                    spin(0.01)
                    if cycle in (20, 200):
                        spin(0.5)
                        sizes[cycle] = rss()
                print("rss", sizes[20], sizes[200], flush=True)
                print("after cycles", " ".join(children()) or "none", flush=True)
                GLib.idle_add(loop.quit)
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Cycles")
            defer { window.stop() }
            let (_, lines) = window.finish(timeout: 120)
            XCTAssertTrue(lines.first { $0.hasPrefix("shown ") }?.contains("photopick-work") ?? false, "the first run started workers: \(lines) \(window.errorText)")
            XCTAssertTrue(lines.contains("after none"), "no worker, and no zombie, after the picker went: \(lines)")
            XCTAssertTrue(lines.contains("after cycles none"), "\(lines)")
            let threads = try XCTUnwrap(lines.first { $0.hasPrefix("threads ") }?.split(separator: " ").dropFirst().compactMap { Int($0) })
            XCTAssertLessThanOrEqual(threads[1], threads[0] + 3, "threads before the picker and after it went: \(threads)")
            let rss = try XCTUnwrap(lines.first { $0.hasPrefix("rss ") }?.split(separator: " ").dropFirst().compactMap { Int($0) })
            // (kB after 20 cycles and after 200: flat is within 8 MB, where a leak of the picker's
            // state or a cache kept per picker grows by tens.)
            XCTAssertLessThan(rss[1] - rss[0], 8 * 1024, "RSS after 20 and after 200 cycles, kB: \(rss)")
        }
    }

    /// A host app destroys the picker while a pick's copy waits on a server that stopped
    /// answering (its processes stopped, as a NAS that hangs): the host's GTK thread is back at
    /// once (issue 37: it was blocked for 22 s, the copy's thread joined on the GTK thread).
    nonisolated func testDestroyingThePickerWhileACopyWaitsOnAStalledServerDoesNotBlockTheHost() throws {
        try MainActor.assumeIsolated {
            let server = try SFTPServer()
            defer { server.close() }
            let photos = work.appendingPathComponent("remote")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            for number in 1...2 {
                let made = try TestSupport.run("/usr/bin/convert", ["-size", "1600x1200", "plasma:", "-quality", "95",
                                                                     photos.appendingPathComponent("r\(number).jpg").path])
                XCTAssertEqual(made.status, 0, made.error)
            }
            let script = try pythonHost("host", title: "Host", width: 800, height: 500, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                window.set_child(picker)
                # F9: the host lets the picker go, as an app closing its attach sheet.
                def key(controller, keyval, code, state):
                    if keyval != 0xffc6:
                        return False
                    started = time.monotonic()
                    window.set_child(None)
                    print("destroyed %.2f" % (time.monotonic() - started), flush=True)
                    GLib.timeout_add(300, loop.quit)
                    return True
                keys = Gtk.EventControllerKey()
                keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
                keys.connect("key-pressed", key)
                window.add_controller(keys)
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, server.uri(photos.path)],
                                           dataHome: dataHome, cacheHome: cacheHome,
                                           environment: prefixEnvironment.merging(server.environment) { $1 }.merging(["PHOTOPICK_TRACE_FETCH": "1"]) { $1 }, title: "Host")
            defer { window.stop() }
            // Until the cells have read both photos for their thumbnails: the link is the copy's alone.
            let paths = (1...2).map { photos.appendingPathComponent("r\($0).jpg").path }
            let deadline = Date().addingTimeInterval(30)
            while !paths.allSatisfy({ server.bytesRead()[$0] != nil }), Date() < deadline { usleep(200_000) }
            usleep(500_000)
            try server.stall()
            defer { try? server.resume() }
            try window.keys("space")  // the newest photo: its copy starts, and waits on the server
            usleep(1_500_000)
            try window.keys("F9")
            let (_, lines) = window.finish(timeout: 10)
            let seconds = try XCTUnwrap(lines.first { $0.hasPrefix("destroyed ") }.flatMap { Double($0.dropFirst(10)) }, "\(lines) \(window.errorText)")
            XCTAssertLessThan(seconds, 1, "the host's GTK thread waited on the stalled server")
            // (Its id is 1 or 2: ids follow the server's listing order, which is not the names'.)
            XCTAssertTrue(window.errorText.contains("fetch 1 fetching") || window.errorText.contains("fetch 2 fetching"),
                          "the copy was under way: \(window.errorText)")
        }
    }

    /// A host moves the picker to another pane of its window (GTK takes its cells down when it
    /// leaves and makes new ones when it comes back): the pick made before stays, the keys pick
    /// on from the photo it was on, and the host gets both in pick order, with nothing amiss said.
    nonisolated func testAPickerMovedToAnotherPaneKeepsItsPicksAndPicksOn() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("moved", title: "Moved", width: 900, height: 500, """
                picker = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False, hexpand=True)
                left, right = Gtk.Box(hexpand=True), Gtk.Box(hexpand=True)
                panes = Gtk.Box(homogeneous=True)
                panes.append(left)
                panes.append(right)
                window.set_child(panes)
                # F9: the host moves the picker into the other pane.
                def key(controller, keyval, code, state):
                    if keyval != 0xffc6:
                        return False
                    left.remove(picker)
                    right.append(picker)
                    print("moved", picker.props.picked_count, flush=True)
                    GLib.timeout_add(300, lambda: picker.grab_focus() and False)
                    return True
                keys = Gtk.EventControllerKey()
                keys.set_propagation_phase(Gtk.PropagationPhase.CAPTURE)
                keys.connect("key-pressed", key)
                window.add_controller(keys)
                def confirmed(picker, uris):
                    print("confirmed", *[os.path.basename(uri) for uri in uris], flush=True)
                    loop.quit()
                picker.connect("confirmed", confirmed)
                left.append(picker)
                window.present()
                picker.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Moved")
            defer { window.stop() }
            usleep(800_000)
            try window.keys("space")
            usleep(300_000)
            try window.keys("F9")
            usleep(1_000_000)
            try window.keys("Right", "space")
            usleep(300_000)
            try window.keys("ctrl+Return")
            let (_, lines) = window.finish(timeout: 15)
            XCTAssertTrue(lines.contains("moved 1"), "the pick made before the move: \(lines) \(window.errorText)")
            // (The cursor comes back on p5, where it was: Right then goes to p4. GtkGridView's own
            // memory of the focus came back on p4.)
            XCTAssertEqual(lines.first { $0.hasPrefix("confirmed") }, "confirmed p5.jpg p4.jpg", "\(lines) \(window.errorText)")
            XCTAssertEqual(window.problems, "", "GTK said nothing amiss")
        }
    }

    /// Two pickers of the same folder side by side in one process: one index, picks of their own.
    nonisolated func testTwoPickersInOneWindowKeepTheirOwnPicks() throws {
        try MainActor.assumeIsolated {
            let script = try pythonHost("two", title: "Two", width: 1000, height: 500, """
                left = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                right = Photopick.Picker(library_folders=[sys.argv[1]], show_camera=False)
                box = Gtk.Box(spacing=6, homogeneous=True)
                box.append(left)
                box.append(right)
                window.set_child(box)
                # The first pick on the left sends the keys to the right picker.
                left.connect("notify::picked-count", lambda *_: left.props.picked_count == 1 and GLib.idle_add(right.grab_focus))
                def confirmed(picker, uris):
                    print("right", *uris, flush=True)
                    print("left", *left.get_picked_uris(), flush=True)
                    print("indexes", len(glob.glob(os.path.join(os.environ["XDG_DATA_HOME"], "photopick", "*.sqlite"))), flush=True)
                    loop.quit()
                right.connect("confirmed", confirmed)
                window.present()
                left.grab_focus()
                """)
            let window = try WindowProcess(display: display, executable: python, arguments: [script.path, library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Two")
            defer { window.stop() }
            usleep(800_000)  // both pickers' one scan of five files
            try window.keys("space")
            usleep(400_000)
            try window.keys("Right", "space")
            usleep(300_000)
            try window.keys("ctrl+Return")
            let problems = window.problems
            let (status, lines) = window.finish(timeout: 10)
            XCTAssertEqual(status, 0, window.errorText)
            XCTAssertEqual(lines, ["right \(uri(4))", "left \(uri(5))", "indexes 1"], window.errorText)
            XCTAssertEqual(problems, "")
        }
    }

    /// The library as libadwaita and libportal are (issue 38, point 16): it exports the functions
    /// of its header and nothing else (2,947 symbols, its Swift code's and C helpers', were there
    /// to bind to), and a C program checks the version it is built against with
    /// PHOTOPICK_CHECK_VERSION and the one it runs on with photopick_get_*_version.
    nonisolated func testTheLibraryExportsItsHeaderAndNothingElseWithVersionMacros() throws {
        try MainActor.assumeIsolated {
            let installed = prefix.appendingPathComponent("lib/libphotopick-1.so.0").path
            let nm = try TestSupport.run("/usr/bin/nm", ["-D", "--defined-only", installed])
            XCTAssertEqual(nm.status, 0, nm.error)
            let exported = Set(String(decoding: nm.output, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
            let header = try String(contentsOf: prefix.appendingPathComponent("include/photopick-1/photopick.h"), encoding: .utf8)
            let declared = Set(header.matches(of: /\b(photopick_[a-z_]+)\s+\(/).map { String($0.1) } + ["photopick_picker_get_type"])
            XCTAssertEqual(exported, declared, "exported but not in the header: \(exported.subtracting(declared).sorted().prefix(20)); declared, not exported: \(declared.subtracting(exported).sorted())")
            XCTAssertGreaterThan(declared.count, 20)

            let source = work.appendingPathComponent("version.c")
            try """
                #include <photopick-1/photopick.h>
                #include <stdio.h>
                #if !PHOTOPICK_CHECK_VERSION (0, 2, 0) || PHOTOPICK_CHECK_VERSION (0, 99, 0) || PHOTOPICK_CHECK_VERSION (1, 0, 0)
                #error "PHOTOPICK_CHECK_VERSION is wrong"
                #endif
                int
                main (void)
                {
                  printf ("built %s run %u.%u.%u\\n", PHOTOPICK_VERSION_S, photopick_get_major_version (),
                          photopick_get_minor_version (), photopick_get_micro_version ());
                  printf ("macros %d.%d.%d\\n", PHOTOPICK_MAJOR_VERSION, PHOTOPICK_MINOR_VERSION, PHOTOPICK_MICRO_VERSION);
                  return 0;
                }
                """.write(to: source, atomically: true, encoding: .utf8)
            let flags = try TestSupport.run("/usr/bin/pkg-config", ["--cflags", "--libs", "photopick-1"], environment: prefixEnvironment)
            let binary = work.appendingPathComponent("version").path
            let compiled = try TestSupport.run("/usr/bin/cc", [source.path, "-o", binary, "-Wall", "-Werror"]
                                                + String(decoding: flags.output, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init), timeout: 120)
            XCTAssertEqual(compiled.status, 0, compiled.error)
            let ran = try TestSupport.run(binary, [], environment: prefixEnvironment)
            let version = try XCTUnwrap(String(decoding: try TestSupport.run(TestSupport.photopick, ["--version"]).output, as: UTF8.self)
                .split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(String(decoding: ran.output, as: UTF8.self), "built \(version) run \(version)\nmacros \(version)\n", ran.error)
            let pc = try TestSupport.run("/usr/bin/pkg-config", ["--modversion", "photopick-1"], environment: prefixEnvironment)
            XCTAssertEqual(String(decoding: pc.output, as: UTF8.self), version + "\n")
        }
    }

    /// A host linked to libphotopick-1 that never makes a picker loads no Swift (issue 38, point
    /// 7: the library was the implementation itself, 14 Swift runtime libraries loaded at every
    /// start); the first picker loads it, and the host's signal handlers are still its own after
    /// the picker has opened its library (point 3: the Swift runtime's backtracer and the crash
    /// journal took SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP and SIGQUIT), with the
    /// crash journal kept without handlers.
    nonisolated func testAHostPaysForThePickerOnlyWhenItMakesOneAndKeepsItsSignals() throws {
        try MainActor.assumeIsolated {
            let source = work.appendingPathComponent("lazy.c")
            try """
                #include <photopick-1/photopick.h>
                #include <signal.h>
                #include <stdio.h>
                #include <string.h>
                #include <unistd.h>

                static void host_handler (int signal_number) { (void) signal_number; }

                static int
                mapped (const char *name)
                {
                  char line[4096];
                  int found = 0;
                  FILE *maps = fopen ("/proc/self/maps", "r");
                  while (fgets (line, sizeof line, maps) != NULL)
                    found |= strstr (line, name) != NULL;
                  fclose (maps);
                  return found;
                }

                static void
                report (const char *when)
                {
                  const int signals[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };
                  stack_t stack;
                  printf ("%s swift=%d implementation=%d", when, mapped ("libswiftCore"), mapped ("libphotopick-implementation"));
                  for (int i = 0; i < 7; i++)
                    {
                      struct sigaction action;
                      sigaction (signals[i], NULL, &action);
                      printf (" %d=%s", signals[i], action.sa_handler == SIG_DFL ? "default" : action.sa_handler == host_handler ? "host" : "other");
                    }
                  sigaltstack (NULL, &stack);
                  printf (" altstack=%s\\n", (stack.ss_flags & SS_DISABLE) ? "none" : "set");
                  fflush (stdout);
                }

                /* The picker's crash journal beside its index: whether it says handlers mark crashes. */
                static void
                report_journal (void)
                {
                  char command[512], path[4096];
                  snprintf (command, sizeof command, "find \\"$XDG_CACHE_HOME\\" \\"$XDG_DATA_HOME\\" -name '*.reading-%d'", (int) getpid ());
                  FILE *found = popen (command, "r");
                  int journals = 0, marking = 0;
                  while (fgets (path, sizeof path, found) != NULL)
                    {
                      unsigned char header[2] = { 0, 0 };
                      FILE *journal;
                      path[strcspn (path, "\\n")] = 0;
                      journal = fopen (path, "rb");
                      if (journal != NULL && fread (header, 1, 2, journal) == 2)
                        {
                          journals++;
                          marking += header[1] != 0;
                        }
                      if (journal != NULL)
                        fclose (journal);
                    }
                  pclose (found);
                  printf ("journals %d marking %d\\n", journals, marking);
                }

                static void
                spin (int milliseconds)
                {
                  gint64 end = g_get_monotonic_time () + milliseconds * 1000;
                  while (g_get_monotonic_time () < end)
                    {
                      g_main_context_iteration (NULL, FALSE);
                      g_usleep (2000);
                    }
                }

                int
                main (int argc, char **argv)
                {
                  struct sigaction action = { 0 };
                  const char *folders[] = { argv[1], NULL };
                  GtkWidget *window, *picker, *second, *start = NULL, *title = NULL, *end = NULL;
                  gpointer klass;

                  action.sa_handler = host_handler;
                  sigaction (SIGSEGV, &action, NULL);
                  gtk_init ();
                  window = gtk_window_new ();
                  gtk_window_set_title (GTK_WINDOW (window), "Lazy");
                  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
                  gtk_window_present (GTK_WINDOW (window));
                  spin (300);
                  /* The type and its class, as a GI host reads them, are the shell's alone. */
                  klass = g_type_class_ref (PHOTOPICK_TYPE_PICKER);
                  g_type_class_unref (klass);
                  report ("without");
                  picker = g_object_new (PHOTOPICK_TYPE_PICKER, "library-folders", folders, "show-camera", FALSE, NULL);
                  gtk_window_set_child (GTK_WINDOW (window), picker);
                  /* The implementation loads on a thread meanwhile; a call that needs it now waits
                     for it, and the picker made before gets its behaviour then too. */
                  second = g_object_ref_sink (photopick_picker_new ());
                  photopick_picker_get_header_widgets (PHOTOPICK_PICKER (second), &start, &title, &end);
                  printf ("header %d\\n", (start != NULL) + (title != NULL) + (end != NULL));
                  g_object_unref (second);
                  for (int waited = 0; waited < 200 && photopick_picker_get_album (PHOTOPICK_PICKER (picker)) == NULL; waited++)
                    spin (50);
                  spin (500);
                  printf ("album %s\\n", photopick_picker_get_album (PHOTOPICK_PICKER (picker)));
                  report ("with");
                  report_journal ();
                  gtk_window_destroy (GTK_WINDOW (window));
                  return 0;
                }
                """.write(to: source, atomically: true, encoding: .utf8)
            let flags = try TestSupport.run("/usr/bin/pkg-config", ["--cflags", "--libs", "photopick-1"], environment: prefixEnvironment)
            XCTAssertEqual(flags.status, 0, flags.error)
            let binary = work.appendingPathComponent("lazy").path
            let compiled = try TestSupport.run("/usr/bin/cc", [source.path, "-o", binary, "-Wall", "-Werror"]
                                                + String(decoding: flags.output, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init), timeout: 120)
            XCTAssertEqual(compiled.status, 0, compiled.error)
            let needed = try TestSupport.run("/usr/bin/ldd", [binary], environment: prefixEnvironment)
            XCTAssertFalse(String(decoding: needed.output, as: UTF8.self).contains("swift"), "the host needs no Swift library to start")

            let window = try WindowProcess(display: display, executable: binary, arguments: [library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Lazy")
            defer { window.stop() }
            let (status, lines) = window.finish(timeout: 60)
            XCTAssertEqual(status, 0, window.errorText)
            let host = "\(SIGQUIT)=default \(SIGILL)=default \(SIGTRAP)=default \(SIGABRT)=default \(SIGBUS)=default \(SIGFPE)=default \(SIGSEGV)=host altstack=none"
            XCTAssertEqual(lines, ["without swift=0 implementation=0 " + host, "header 3", "album Recents", "with swift=1 implementation=1 " + host,
                                   "journals 1 marking 0"], window.errorText)
        }
    }

    /// A JavaScript host (GJS) and a Vala host built with valac from the installed `.vapi` (issue
    /// 38, point 18) pick three photos with the keyboard, unpick the second and get the two URIs in
    /// order; the `.vapi` keeps the two nullable string properties nullable, and the API reference
    /// gi-docgen made is installed.
    nonisolated func testAGJSHostAndAValaHostFromTheInstalledVapiGetThePicks() throws {
        try MainActor.assumeIsolated {
            for tool in ["/usr/bin/gjs", "/usr/bin/valac"] where !FileManager.default.isExecutableFile(atPath: tool) {
                XCTFail("\(tool) is missing: run scripts/bootstrap")
                return
            }
            let vapi = try String(contentsOf: prefix.appendingPathComponent("share/vala/vapi/photopick-1.vapi"), encoding: .utf8)
            XCTAssertTrue(vapi.contains("public string? album {") && vapi.contains("public string? confirm_label {"), vapi)
            XCTAssertEqual(try String(contentsOf: prefix.appendingPathComponent("share/vala/vapi/photopick-1.deps"), encoding: .utf8), "gtk4\n")
            for page in ["index.html", "class.Picker.html", "embedding.html", "type_func.Picker.dialog_open.html", "property.Picker.picked-uris.html"] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/doc/photopick-1/\(page)").path), "the API reference has \(page)")
            }

            let javascript = work.appendingPathComponent("host.js")
            try """
                imports.gi.versions.Gtk = "4.0";
                const { GLib, Gtk, Photopick } = imports.gi;
                Gtk.init();
                const loop = new GLib.MainLoop(null, false);
                const window = new Gtk.Window({ title: "GJS", default_width: 800, default_height: 600 });
                const picker = new Photopick.Picker({ library_folders: [ARGV[0]], show_camera: false });
                picker.connect("confirmed", (_picker, uris) => { for (const uri of uris) print(uri); loop.quit(); });
                window.connect("close-request", () => { loop.quit(); return false; });
                window.set_child(picker);
                window.present();
                picker.grab_focus();
                loop.run();
                """.write(to: javascript, atomically: true, encoding: .utf8)
            let vala = work.appendingPathComponent("host.vala")
            try """
                int main (string[] args) {
                    Gtk.init ();
                    var loop = new MainLoop ();
                    var window = new Gtk.Window () { title = "Vala", default_width = 800, default_height = 600 };
                    // (Set up after new (): the picker is built once this is over, on these folders only.)
                    var picker = new Photopick.Picker () { library_folders = { args[1] }, show_camera = false };
                    string? label = null;  // (nullable in the .vapi: the default "Add")
                    picker.confirm_label = label;
                    picker.confirmed.connect ((uris) => {
                        foreach (var uri in uris) print ("%s\\n", uri);
                        loop.quit ();
                    });
                    window.close_request.connect (() => { loop.quit (); return false; });
                    window.child = picker;
                    window.present ();
                    picker.grab_focus ();
                    loop.run ();
                    return 0;
                }
                """.write(to: vala, atomically: true, encoding: .utf8)
            let binary = work.appendingPathComponent("vala-host").path
            let compiled = try TestSupport.run("/usr/bin/valac", ["--pkg", "gtk4", "--pkg", "photopick-1", "--vapidir",
                                                                  prefix.appendingPathComponent("share/vala/vapi").path,
                                                                  "--directory", work.path, "-X", "-w", "-o", binary, vala.path],
                                               environment: prefixEnvironment, timeout: 180)
            XCTAssertEqual(compiled.status, 0, String(decoding: compiled.output, as: UTF8.self) + compiled.error)

            for (executable, arguments, title) in [("/usr/bin/gjs", [javascript.path, library.path], "GJS"), (binary, [library.path], "Vala")] {
                let window = try WindowProcess(display: display, executable: executable, arguments: arguments, dataHome: dataHome,
                                               cacheHome: cacheHome, environment: prefixEnvironment, title: title)
                defer { window.stop() }
                usleep(500_000)
                try pickThreeUnpickTheSecondAndConfirm(in: window)
                let (_, lines) = window.finish(timeout: 10)
                XCTAssertEqual(lines, [uri(5), uri(3)], "\(title): \(window.errorText)")
            }
        }
    }

    nonisolated func testTheCExampleBuildsWithPkgConfigAndPrintsThePicks() throws {
        try MainActor.assumeIsolated {
            let flags = try TestSupport.run("/usr/bin/pkg-config", ["--cflags", "--libs", "photopick-1"], environment: prefixEnvironment)
            XCTAssertEqual(flags.status, 0, flags.error)
            let binary = work.appendingPathComponent("attach").path
            let source = TestSupport.packageRoot.appendingPathComponent("examples/attach.c").path
            let arguments = [source, "-o", binary, "-Wall", "-Werror"]
                + String(decoding: flags.output, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
            let compiled = try TestSupport.run("/usr/bin/cc", arguments, timeout: 120)
            XCTAssertEqual(compiled.status, 0, compiled.error)
            let window = try WindowProcess(display: display, executable: binary, arguments: [library.path], dataHome: dataHome,
                                           cacheHome: cacheHome, environment: prefixEnvironment, title: "Attach")
            defer { window.stop() }
            usleep(500_000)
            try pickThreeUnpickTheSecondAndConfirm(in: window)
            let problems = window.problems
            let (status, lines) = window.finish(timeout: 10)
            XCTAssertEqual(status, 0, window.errorText)
            XCTAssertEqual(lines, [uri(5), uri(3)], window.errorText)
            XCTAssertEqual(problems, "")
        }
    }
}
