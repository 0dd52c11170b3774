// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

/// Every command of the picker as a GAction of its window ("win.confirm" …) with the accelerators
/// GNOME apps use, and the shortcuts window (Ctrl+?) written from the same table, so the two
/// never disagree. Application accelerators act before any widget sees the key, so only keys
/// with a modifier are registered there; plain keys (Escape, Space, P) stay with the widgets that
/// give them their meaning in context (the search entry, the preview), and the shortcuts window
/// lists them too.
@MainActor
enum PickerActions {
    struct Command {
        /// The action's name, without "win.".
        let name: String
        /// What the shortcuts window says.
        let title: String
        /// Accelerators registered with the application (GTK's syntax).
        let accelerators: [String]
        /// Keys the widgets handle themselves, listed beside the accelerators.
        let keys: [String]
        let section: String
        let run: @MainActor (PickerView) -> Void

        init(_ name: String, _ title: String, accelerators: [String] = [], keys: [String] = [], section: String,
             _ run: @escaping @MainActor (PickerView) -> Void) {
            self.name = name
            self.title = title
            self.accelerators = accelerators
            self.keys = keys
            self.section = section
            self.run = run
        }
    }

    /// The commands of a script's picker, or of the app from the menu (`desktop`): there the
    /// primary button copies, Escape only goes back, and Ctrl+W and Ctrl+Q close the app as in
    /// every GNOME app. Computed: the titles are in the language in use when the window is built.
    static func commands(desktop: Bool = false) -> [Command] {
        let picking = i18n("Picking"), viewing = i18n("Viewing"), camera = i18n("Camera"), general = i18n("General")
        var commands = [
            Command("confirm", desktop ? i18n("Copy the picked photos") : i18n("Add the picked photos"),
                    accelerators: ["<Control>Return", "<Control>KP_Enter"], section: picking) { $0.confirm() },
            desktop
                ? Command("cancel", i18n("Go back from the preview or the camera"), keys: ["Escape"], section: picking) { $0.cancelOrGoBack() }
                : Command("cancel", i18n("Cancel, or go back from the preview or the camera"), keys: ["Escape"], section: picking) { $0.cancelOrGoBack() },
            Command("pick", i18n("Pick or unpick the focused photo"), keys: ["space", "Return"], section: picking) { view in
                if let position = view.focusedPosition { view.toggle(at: position) }
            },
            Command("preview", i18n("Show the focused photo large"), accelerators: ["<Alt>Return"], section: viewing) { view in
                if let position = view.focusedPosition { view.openPreview(at: position) }
            },
            Command("zoom-in", i18n("Larger thumbnails"), accelerators: ["<Control>plus", "<Control>equal", "<Control>KP_Add"], section: viewing) { $0.zoom(by: 1) },
            Command("zoom-out", i18n("Smaller thumbnails"), accelerators: ["<Control>minus", "<Control>KP_Subtract"], section: viewing) { $0.zoom(by: -1) },
            Command("choose-album", i18n("Choose an album"), accelerators: ["<Control>o"], section: viewing) { $0.albumSwitcherPopup() },
            Command("take-photo", i18n("Take a photo with the camera"), accelerators: ["<Control>t"], section: camera) { $0.openCapture() },
            Command("location", i18n("Type a file's path"), accelerators: ["<Control>l"], section: picking) { $0.openLocation() },
            Command("show-help-overlay", i18n("Keyboard shortcuts"), accelerators: ["<Control>question"], section: general) { _ in },
        ]
        if desktop {
            // The picks are kept for the next launch (PickerWindow), so closing loses nothing.
            commands.append(Command("close", i18n("Close the window"), accelerators: ["<Control>w"], section: general) { $0.onCancel?() })
            commands.append(Command("quit", i18n("Quit"), accelerators: ["<Control>q"], section: general) { $0.onCancel?() })
        }
        return commands
    }

    /// Adds the actions to `window` and their accelerators to `application`, and gives the
    /// window its shortcuts window.
    static func install(window: UnsafeMutablePointer<GtkWidget>, application: UnsafeMutablePointer<GtkApplication>, view: PickerView,
                        desktop: Bool = false) {
        let commands = commands(desktop: desktop)
        for command in commands where command.name != "show-help-overlay" {
            let action = g_simple_action_new(command.name, nil)!
            // The picker's own commands go to its picker.* actions (one implementation, acting
            // as they do in any host); the window's accelerators reach them from its header bar
            // too, where the picker's class shortcuts cannot. The view goes with its widget.
            let pickerAction = PickerBehaviour.actionNames.contains(command.name) ? "picker.\(command.name)" : nil
            Signal.connectAction(action) { [weak view] in
                guard let view else { return }
                if let pickerAction { _ = gtk_widget_activate_action_variant(view.widget, pickerAction, nil) } else { command.run(view) }
            }
            g_action_map_add_action(OpaquePointer(window), action)
            g_object_unref(UnsafeMutableRawPointer(action))
        }
        for command in commands where !command.accelerators.isEmpty {
            command.accelerators.withCStringArray { gtk_application_set_accels_for_action(application, "win.\(command.name)", $0) }
        }
        // Without a camera there is nothing to take a photo with: the action is off and the
        // shortcuts window does not offer it.
        let hasCamera = view.controller.camera != nil
        let camera = g_action_map_lookup_action(OpaquePointer(window), "take-photo")
        g_simple_action_set_enabled(camera, hasCamera ? 1 : 0)
        // GtkApplicationWindow makes "win.show-help-overlay" from it.
        // The app from the menu takes no typed path: the command is off there, and not listed.
        let location = g_action_map_lookup_action(OpaquePointer(window), "location")
        g_simple_action_set_enabled(location, view.offersLocation ? 1 : 0)
        installShortcutsWindow(on: window, listing: commands.filter {
            (hasCamera || $0.name != "take-photo") && (view.offersLocation || $0.name != "location")
        })
    }

    /// A GtkShortcutsWindow listing `commands`, from GtkBuilder XML written here.
    static func installShortcutsWindow(on window: UnsafeMutablePointer<GtkWidget>, listing commands: [Command]) {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?><interface><object class="GtkShortcutsWindow" id="shortcuts"><property name="modal">1</property><property name="title">"#
            + escaped(i18n("Keyboard Shortcuts"))
            + #"</property><child><object class="GtkShortcutsSection"><property name="section-name">picker</property>"#
        var sections: [String] = []
        for command in commands where !sections.contains(command.section) { sections.append(command.section) }
        for section in sections {
            xml += #"<child><object class="GtkShortcutsGroup"><property name="title">\#(escaped(section))</property>"#
            for command in commands where command.section == section {
                let accelerator = (command.accelerators.prefix(1) + command.keys).joined(separator: " ")
                xml += #"<child><object class="GtkShortcutsShortcut"><property name="title">\#(escaped(command.title))</property><property name="accelerator">\#(escaped(accelerator))</property></object></child>"#
            }
            xml += "</object></child>"
        }
        xml += "</object></child></object></interface>"
        let builder = gtk_builder_new_from_string(xml, -1)!
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let object = gtk_builder_get_object(builder, "shortcuts") else { return }
        // The application window takes its own reference (and destroys it with itself).
        gtk_application_window_set_help_overlay(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkApplicationWindow.self),
                                                OpaquePointer(object))
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

extension PickerView {
    /// Escape: back from the preview or the capture view, else cancel (where Escape cancels).
    func cancelOrGoBack() {
        if locationIsOpen { closeLocation() } else if captureView.isVisible { closeCapture() } else if preview.isVisible { closePreview() }
        else if escapeCancels { onCancel?() }
    }
}

extension PickerView {
    /// Ctrl+O: the album list opens, its search taking the keys.
    func albumSwitcherPopup() {
        // (A popover needs its button on screen: an embedded picker's host may not have packed
        // the header's widgets, or not shown the picker yet.)
        guard !preview.isVisible, !captureView.isVisible, gtk_widget_get_mapped(albumSwitcher) != 0 else { return }
        switcher.popup()
    }
}
