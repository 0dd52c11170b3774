// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport

/// The picker's keys in a host's window (issue 38, point 4).
///
/// A GtkApplication's accelerators are a shortcut controller in the capture phase of each of
/// its windows (gtkwindow.c), so they come before any widget's own shortcuts: a chat app that
/// binds Ctrl+Return to "send" and Escape to "close" took those keys from the picker even while
/// the focus was in it. While the picker is mapped, its keys are a capture-phase controller on
/// the host's window too, added after the application's and so run before it; each acts only
/// while the focus is inside the picker (its header widgets included, wherever the host packed
/// them) and not in a popover of it (the album list's Escape closes the list). Everywhere else
/// the keys go on to the host.
@MainActor
final class HostWindowKeys {
    private let controller: GObjectRef
    private var window: UnsafeMutablePointer<GtkWidget>?

    /// The keys of `picker`, whose widget's actions they run.
    init(picker: Picker) {
        let widget = picker.widget
        let controller = gtk_shortcut_controller_new()!
        self.controller = GObjectRef(controller, transfer: .full)
        gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE)
        gtk_event_controller_set_name(controller, "photopick-picker-keys")
        let owns: @MainActor (Picker) -> Bool = { $0.focusIsInside && !$0.focusIsInPopover }
        picker.addShortcut(to: controller, "Escape") { picker in
            guard owns(picker) else { return false }
            picker.endFind()
            picker.cancelOrGoBack()
            return true
        }
        for trigger in ["<Control>Return", "<Control>KP_Enter"] {
            picker.addShortcut(to: controller, trigger) { picker in
                guard owns(picker) else { return false }
                picker.confirm()
                return true
            }
        }
        // The widget's own accelerators (the shell's picker_actions), through its actions, so
        // that a disabled one (the camera's, with no camera) stays so.
        // (The picker outlives this controller on any window: it is detached as the library goes.)
        for command in PickerCommands.all where command.name != "confirm" {
            for accelerator in command.accelerators {
                picker.addShortcut(to: controller, accelerator) { picker in
                    guard owns(picker), gtk_widget_activate_action_variant(widget, "picker.\(command.name)", nil) != 0 else { return false }
                    return true
                }
            }
        }
    }

    /// On the window of the picker, now mapped (and off the window it was on before).
    func attach(to root: UnsafeMutablePointer<GtkWidget>) {
        if window == root { return }
        detach()
        window = root
        g_object_ref(controller.pointer)  // (gtk_widget_add_controller takes a reference)
        gtk_widget_add_controller(root, OpaquePointer(controller.pointer))
    }

    /// Off the window (the picker unmapped, rebuilt or gone): the host's keys are all its own.
    func detach() {
        defer { window = nil }
        guard let owner = gtk_event_controller_get_widget(OpaquePointer(controller.pointer)) else { return }
        gtk_widget_remove_controller(owner, OpaquePointer(controller.pointer))
    }
}
