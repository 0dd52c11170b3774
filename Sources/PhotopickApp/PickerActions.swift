// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGtk
import GObjectSupport
import GTKSupport

/// Every command of the picker as a GAction of its window ("win.confirm" …) with the accelerators
/// GNOME apps use, and the shortcuts window (Ctrl+?) written from the same table, so the two
/// never disagree. The picker's own commands run its picker.* actions (the widget's, with the
/// same accelerators while the focus is in it: a test holds the two tables together). Application accelerators act before any widget sees the key, so only keys
/// with a modifier are registered there; plain keys (Escape, Space, P) stay with the widgets that
/// give them their meaning in context (the search entry, the preview), and the shortcuts window
/// lists them too.
@MainActor
public enum PickerActions {
    public struct Command {
        /// The action's name, without "win.".
        public let name: String
        /// What the shortcuts window says.
        public let title: String
        /// Accelerators registered with the application (GTK's syntax).
        public let accelerators: [String]
        /// Keys the widgets handle themselves, listed beside the accelerators.
        public let keys: [String]
        let section: String
        /// Whether it is the picker's picker.* action of the same name; else the window's own.
        public let isPickers: Bool

        init(_ name: String, _ title: String, accelerators: [String] = [], keys: [String] = [], section: String, window: Bool = false) {
            self.name = name
            self.title = title
            self.accelerators = accelerators
            self.keys = keys
            self.section = section
            self.isPickers = !window
        }

        /// Keys a widget handles itself (the grid's, the strip's): listed, with no action.
        var isKeysOnly: Bool { accelerators.isEmpty && !keys.isEmpty && !isPickers }
    }

    /// The commands of a script's picker, or of the app from the menu (`desktop`): there the
    /// primary button copies, Escape only goes back, and Ctrl+W and Ctrl+Q close the app as in
    /// every GNOME app. Computed: the titles are in the language in use when the window is built.
    public static func commands(desktop: Bool = false) -> [Command] {
        let picking = i18n("Picking"), viewing = i18n("Viewing"), camera = i18n("Camera"), general = i18n("General")
        var commands = [
            Command("confirm", desktop ? i18n("Copy the picked photos") : i18n("Add the picked photos"),
                    accelerators: ["<Control>Return", "<Control>KP_Enter"], section: picking),
            desktop
                ? Command("cancel", i18n("Go back from the preview or the camera"), keys: ["Escape"], section: picking)
                : Command("cancel", i18n("Cancel, or go back from the preview or the camera"), keys: ["Escape"], section: picking),
            Command("pick", i18n("Pick or unpick the focused photo"), keys: ["space", "Return"], section: picking),
            Command("preview", i18n("Show the focused photo large"), accelerators: ["<Alt>Return"], section: viewing),
            Command("zoom-in", i18n("Larger thumbnails"), accelerators: ["<Control>plus", "<Control>equal", "<Control>KP_Add"], section: viewing),
            Command("zoom-out", i18n("Smaller thumbnails"), accelerators: ["<Control>minus", "<Control>KP_Subtract"], section: viewing),
            Command("choose-album", i18n("Choose an album"), accelerators: ["<Control>o"], section: viewing),
            Command("screen", i18n("A screen up or down"), keys: ["Page_Up", "Page_Down"], section: viewing, window: true),
            Command("ends", i18n("The newest or the oldest photo"), keys: ["Home", "End"], section: viewing, window: true),
            Command("month", i18n("The first photo of the month before or after"), keys: ["<Control>Up", "<Control>Down"], section: viewing, window: true),
            Command("take-photo", i18n("Take a photo with the camera"), accelerators: ["<Control>t"], section: camera),
            Command("location", i18n("Type a file's path"), accelerators: ["<Control>l"], section: picking),
            Command("range", i18n("Pick the photos from the last pick to here"), keys: ["<Shift>Right", "<Shift>Down"], section: picking, window: true),
            Command("move-pick", i18n("Move the focused pick in the strip"), keys: ["<Alt>Left", "<Alt>Right"], section: picking, window: true),
            Command("pick-all", i18n("Pick every photo of the album"), accelerators: ["<Control>a"], section: picking),
            Command("unpick-all", i18n("Unpick all"), accelerators: ["<Shift><Control>a"], section: picking),
            Command("clear-recently-picked", i18n("Clear Recently Picked"), section: picking),
            Command("show-help-overlay", i18n("Keyboard shortcuts"), accelerators: ["<Control>question"], section: general, window: true),
        ]
        if desktop {
            // The picks are kept for the next launch (PickerWindow), so closing loses nothing.
            // (Its action is DesktopActions'.)
            commands.append(Command("library-folders", i18n("Choose the library's folders"), accelerators: ["<Control>comma"], section: general, window: true))
            commands.append(Command("close", i18n("Close the window"), accelerators: ["<Control>w"], section: general, window: true))
            commands.append(Command("quit", i18n("Quit"), accelerators: ["<Control>q"], section: general, window: true))
        }
        return commands
    }

    /// Adds the actions to `window` and their accelerators to `application`, and gives the
    /// window its shortcuts window. The picker's commands go to its picker.* actions (one
    /// implementation, acting as in any host): the window's accelerators reach them from its
    /// header bar too, where the picker's own shortcuts cannot. Without a camera (`camera`) or a
    /// typed path (`location`), those commands are off and not listed. `close` ends the window
    /// (Ctrl+W, Ctrl+Q).
    static func install(window: UnsafeMutablePointer<GtkWidget>, application: UnsafeMutablePointer<GtkApplication>,
                        picker: UnsafeMutablePointer<GtkWidget>, desktop: Bool, camera: Bool, location: Bool,
                        close: @escaping @MainActor () -> Void) {
        let offered = offeredCommands(desktop: desktop, camera: camera, location: location)
        addActions(offered, to: OpaquePointer(window), picker: picker, close: close)
        for command in offered where !command.accelerators.isEmpty {
            command.accelerators.withCStringArray { gtk_application_set_accels_for_action(application, "win.\(command.name)", $0) }
        }
        addShortcutsWindow(listing: offered, to: OpaquePointer(window), of: window)
    }

    /// The same for a window without an application (the portal backend's: GtkApplication's
    /// start-up calls the portal, which may be waiting for the backend): the actions in the
    /// window's "win" group, their accelerators in a shortcut controller of the window that acts
    /// before its widgets do, as application accelerators do, and its own shortcuts window.
    static func install(window: UnsafeMutablePointer<GtkWidget>, picker: UnsafeMutablePointer<GtkWidget>, camera: Bool, location: Bool,
                        close: @escaping @MainActor () -> Void) {
        let offered = offeredCommands(desktop: false, camera: camera, location: location)
        let group = OpaquePointer(g_simple_action_group_new()!)
        addActions(offered, to: group, picker: picker, close: close)
        addShortcutsWindow(listing: offered, to: group, of: window)
        gtk_widget_insert_action_group(window, "win", group)
        g_object_unref(UnsafeMutableRawPointer(group))
        let controller = gtk_shortcut_controller_new()!
        gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE)
        for command in offered {
            for accelerator in command.accelerators {
                guard let trigger = gtk_shortcut_trigger_parse_string(accelerator) else { continue }
                gtk_shortcut_controller_add_shortcut(controller, gtk_shortcut_new(trigger, gtk_named_action_new("win.\(command.name)")))
            }
        }
        gtk_widget_add_controller(window, controller)
    }

    /// "win.show-help-overlay" (Ctrl+?): the shortcuts window, made the first time it is asked
    /// for. Made with the window, GtkBuilder's parse of it was 4 ms of every start-up (perf of a
    /// warm open) for a window few people open.
    private static func addShortcutsWindow(listing offered: [Command], to map: OpaquePointer, of window: UnsafeMutablePointer<GtkWidget>) {
        let help = g_simple_action_new("show-help-overlay", nil)!
        Signal.connectAction(help) {
            guard let shortcuts = madeShortcutsWindow(of: window) ?? makeShortcutsWindow(listing: offered, for: window) else { return }
            gtk_window_present(shortcuts.cast())
        }
        g_action_map_add_action(map, help)
        g_object_unref(UnsafeMutableRawPointer(help))
    }

    private static let shortcutsWindowKey = "photopick-shortcuts-window"

    /// The window's shortcuts window, once it has been asked for.
    static func madeShortcutsWindow(of window: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget>? {
        g_object_get_data(window.cast(), shortcutsWindowKey)?.assumingMemoryBound(to: GtkWidget.self)
    }

    /// Modal over `window`, hidden when closed (Escape) to be shown again, destroyed with it.
    private static func makeShortcutsWindow(listing offered: [Command], for window: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget>? {
        // (GTK holds a toplevel until it is destroyed: the reference here can go.)
        guard let made = shortcutsWindow(listing: offered) else { return nil }
        let shortcuts = made.pointer.assumingMemoryBound(to: GtkWidget.self)
        gtk_window_set_transient_for(shortcuts.cast(), window.cast())
        gtk_window_set_hide_on_close(shortcuts.cast(), 1)
        g_object_set_data(window.cast(), shortcutsWindowKey, shortcuts)
        Signal.connect(window.raw, "destroy") { () -> Void in
            g_object_set_data(window.cast(), shortcutsWindowKey, nil)
            gtk_window_destroy(shortcuts.cast())
        }
        return shortcuts
    }

    private static func offeredCommands(desktop: Bool, camera: Bool, location: Bool) -> [Command] {
        commands(desktop: desktop).filter { (camera || $0.name != "take-photo") && (location || $0.name != "location") }
    }

    private static func addActions(_ offered: [Command], to map: OpaquePointer, picker: UnsafeMutablePointer<GtkWidget>,
                                   close: @escaping @MainActor () -> Void) {
        // (Keys the grid and the strip handle, listed in the shortcuts window: not actions.)
        for command in offered where !(["show-help-overlay", "library-folders"].contains(command.name) || command.isKeysOnly) {
            let action = g_simple_action_new(command.name, nil)!
            let name = command.name, isPickers = command.isPickers
            Signal.connectAction(action) {
                if isPickers { _ = gtk_widget_activate_action_variant(picker, "picker.\(name)", nil) } else { close() }
            }
            g_action_map_add_action(map, action)
            g_object_unref(UnsafeMutableRawPointer(action))
        }
    }

    /// A GtkShortcutsWindow listing `commands`, from GtkBuilder XML written here.
    static func shortcutsWindow(listing commands: [Command]) -> GObjectRef? {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><interface><object class="GtkShortcutsWindow" id="shortcuts"><property name="modal">1</property><property name="title">"#
            + escaped(i18n("Keyboard Shortcuts"))
            + #"</property><child><object class="GtkShortcutsSection"><property name="section-name">picker</property>"#
        var sections: [String] = []
        for command in commands where !sections.contains(command.section) { sections.append(command.section) }
        for section in sections {
            xml += #"<child><object class="GtkShortcutsGroup"><property name="title">\#(escaped(section))</property>"#
            // (A command with no key, such as Clear Recently Picked, is in a menu, not here.)
            for command in commands where command.section == section && !(command.accelerators.isEmpty && command.keys.isEmpty) {
                let accelerator = (command.accelerators.prefix(1) + command.keys).joined(separator: " ")
                xml += #"<child><object class="GtkShortcutsShortcut"><property name="title">\#(escaped(command.title))</property><property name="accelerator">\#(escaped(accelerator))</property></object></child>"#
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        let builder = gtk_builder_new_from_string(xml, -1)!
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let object = gtk_builder_get_object(builder, "shortcuts") else { return nil }
        return GObjectRef(UnsafeMutableRawPointer(object), transfer: .none)
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
