// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import Basics

/// The picker.* actions: what each does, and the accelerators the shell installs with it
/// (photopick-picker.c's `picker_actions`, which a test holds to this table). A host's window,
/// the photopick program's among them, reaches them by name ("picker.zoom-in").
@MainActor
enum PickerCommands {
    struct Command {
        let name: String
        let accelerators: [String]
        let run: @MainActor (Picker) -> Void
    }

    static let all: [Command] = [
        Command(name: "confirm", accelerators: ["<Control>Return", "<Control>KP_Enter"]) { $0.confirm() },
        Command(name: "cancel", accelerators: []) { $0.cancelOrGoBack() },
        Command(name: "pick", accelerators: []) { picker in
            if let position = picker.focusedPosition { picker.toggle(at: position) }
        },
        Command(name: "preview", accelerators: ["<Alt>Return"]) { picker in
            if let position = picker.focusedPosition { picker.openPreview(at: position) }
        },
        Command(name: "zoom-in", accelerators: ["<Control>plus", "<Control>equal", "<Control>KP_Add"]) { $0.zoom(by: 1) },
        Command(name: "zoom-out", accelerators: ["<Control>minus", "<Control>KP_Subtract"]) { $0.zoom(by: -1) },
        Command(name: "choose-album", accelerators: ["<Control>o"]) { $0.albumSwitcherPopup() },
        Command(name: "take-photo", accelerators: ["<Control>t"]) { $0.openCapture() },
        Command(name: "location", accelerators: ["<Control>l"]) { $0.openLocation() },
        Command(name: "pick-all", accelerators: ["<Control>a"]) { $0.pickAll() },
        Command(name: "unpick-all", accelerators: ["<Shift><Control>a"]) { $0.unpickAll() },
        Command(name: "clear-recently-picked", accelerators: []) { $0.clearRecentlyPicked() },
    ]

    static func named(_ name: String) -> Command? { all.first { $0.name == name } }
}

extension Picker {
    /// Escape: back from the preview or the capture view, else cancel (where Escape cancels).
    func cancelOrGoBack() {
        if locationIsOpen { closeLocation() } else if captureView.isVisible { closeCapture() } else if preview.isVisible { closePreview() }
        else if escapeCancels { cancelled() }
    }

    /// Ctrl+O: the album list opens, its search taking the keys.
    func albumSwitcherPopup() {
        // (A popover needs its button on screen: an embedded picker's host may not have packed
        // the header's widgets, or not shown the picker yet.)
        guard !preview.isVisible, !captureView.isVisible, gtk_widget_get_mapped(albumSwitcher) != 0 else { return }
        switcher.popup()
    }
}

extension Picker {
    /// Forgets the picks of earlier confirms: the Recently Picked album goes from the list (and,
    /// open, gives way to Recents).
    func clearRecentlyPicked() {
        guard controller != nil else { return }
        do {
            try controller.clearRecentlyPicked()
            showToast(i18n("Recently Picked is cleared"))
        } catch {
            DeveloperLog.say("cannot clear Recently Picked: \(error)")
            report(i18n("Recently Picked cannot be cleared: the photo index cannot be written"), printing: false)
        }
    }
}
