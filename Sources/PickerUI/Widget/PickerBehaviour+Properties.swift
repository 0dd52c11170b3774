// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

// MARK: The properties of 0.3 (read through GObject, not the shell's table)
//
// The shell keeps each property's value; the implementation reads it with g_object_get_property
// when it builds and when `changed` says it changed, and writes back the two the person changes
// (cell-size, camera) with g_object_set_property, which notifies the host. GObject's own calls
// need nothing of the shell's symbols, so a property costs no entry in photopick-private.h.
extension PickerBehaviour {
    private var object: UnsafeMutablePointer<GObject> { UnsafeMutableRawPointer(picker).assumingMemoryBound(to: GObject.self) }

    func stringProperty(_ name: String) -> String? {
        var value = GValue()
        g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING: a fundamental type macro Swift cannot import
        defer { g_value_unset(&value) }
        g_object_get_property(object, name, &value)
        return g_value_get_string(&value).map { String(cString: $0) }
    }

    func booleanProperty(_ name: String) -> Bool {
        var value = GValue()
        g_value_init(&value, GType(5 << 2))  // G_TYPE_BOOLEAN
        defer { g_value_unset(&value) }
        g_object_get_property(object, name, &value)
        return g_value_get_boolean(&value) != 0
    }

    func unsignedProperty(_ name: String) -> Int {
        var value = GValue()
        g_value_init(&value, GType(7 << 2))  // G_TYPE_UINT
        defer { g_value_unset(&value) }
        g_object_get_property(object, name, &value)
        return Int(g_value_get_uint(&value))
    }

    func setProperty(_ name: String, string: String?) {
        guard stringProperty(name) != string else { return }
        var value = GValue()
        g_value_init(&value, GType(16 << 2))
        defer { g_value_unset(&value) }
        g_value_set_string(&value, string)
        g_object_set_property(object, name, &value)
    }

    func setProperty(_ name: String, unsigned: Int) {
        guard unsignedProperty(name) != unsigned else { return }
        var value = GValue()
        g_value_init(&value, GType(7 << 2))
        defer { g_value_unset(&value) }
        g_value_set_uint(&value, guint(unsigned))
        g_object_set_property(object, name, &value)
    }

    /// Every 0.3 property, as the view is made (the build reads them all: the last value set wins).
    func applyProperties() {
        for name in Self.viewProperties { apply(name) }
    }

    static let viewProperties = ["cancel-label", "show-cancel", "title", "enter-confirms", "accepts-typed-paths",
                                 "cell-size", "capture-folder", "copy-remote-picks"]

    /// One property of the view changed; false for another property.
    @discardableResult
    func apply(_ property: String) -> Bool {
        guard let view else { return Self.viewProperties.contains(property) }
        switch property {
        case "cancel-label":
            gtk_button_set_label(view.cancelButton.cast(), Self.shortened(stringProperty(property) ?? i18n("Cancel")))
        case "show-cancel":
            let shown = booleanProperty(property)
            gtk_widget_set_visible(view.cancelButton, shown ? 1 : 0)
            // (Without the button, Escape does not end the picker either: the window's own means do.)
            view.escapeCancels = shown
        case "title":
            view.title = stringProperty(property).map(Self.shortened) ?? ""
        case "enter-confirms":
            view.enterConfirms = booleanProperty(property)
        case "accepts-typed-paths":
            view.onTypedPath = booleanProperty(property) ? { [weak self] path in self?.typed(path) } : nil
        case "cell-size":
            let size = unsignedProperty(property)
            view.setCellSize(size == 0 ? 120 : Self.nearestCellSize(size))
            // (The property says the size in use: the default's, or the step nearest the one asked.)
            setProperty(property, unsigned: view.cellSize)
        case "capture-folder":
            view.captureFolder = stringProperty(property).map { given in
                let folder = FilePath(given)
                return RemoteFiles.localPath(ofFileURI: folder) ?? folder.absolute()
            } ?? CaptureWriter.defaultFolder
        case "copy-remote-picks":
            view.controller.fetchesRemotePicks = booleanProperty(property)
        default:
            return false
        }
        return true
    }

    /// The zoom step nearest to a size a program asked for.
    static func nearestCellSize(_ size: Int) -> Int {
        PickerView.cellSizes.min { abs($0 - size) < abs($1 - size) }!
    }

    /// A label a program gave, cut to `labelLimit` characters.
    static func shortened(_ label: String) -> String {
        label.count > labelLimit ? String(label.prefix(labelLimit - 1)) + "…" : label
    }

    /// What the person changes follows in the properties: the zoom, the camera switched to.
    func followPersonsChoices(of view: PickerView) {
        view.onCellSizeChanged = { [weak self] size in self?.setProperty("cell-size", unsigned: size) }
        cameraObservation = view.controller.camera?.observe { [weak self, weak view] event in
            guard case .status = event, let self, let chosen = view?.controller.camera?.chosenCamera else { return }
            self.setProperty("camera", string: chosen.path.displayString)
        }
    }

    /// A file typed in the location bar (accepts-typed-paths): the answer, alone.
    private func typed(_ path: FilePath) {
        guard let uri = Self.uri(of: path) else { return }
        emitConfirmed([uri])
    }

    /// photopick_picker_show_message: a sentence of the program's, over the grid for five
    /// seconds (long enough to read a line; the picker's own problems stay until dismissed).
    func showMessage(_ message: String) {
        buildIfWaiting()
        view?.reported.append(message)
        view?.showToast(message, seconds: 5)
    }

    /// photopick_picker_reveal_uri: the grid scrolled to the photo, the cursor on it. The focus
    /// moves only if it is in the picker already (a widget never takes it by itself); else the
    /// next focus into the grid (grab_focus, Tab) lands there.
    func reveal(uri: String) {
        buildIfWaiting()
        guard let view else { return }
        let given = FilePath(uri)
        guard let path = given.isLocationURI ? given : RemoteFiles.localPath(ofFileURI: given),
              let asset = try? view.library.asset(path: path) else { return }
        if focusIsInside {
            revealedAsset = nil
            view.focusAsset(asset.id)
        } else if view.revealAsset(asset.id) {
            // (GTK 4.8's grid keeps its cursor only while it has the focus: it is kept here.)
            revealedAsset = asset.id
        }
    }

    /// Whether the keyboard focus is in the picker (or in its header widgets, wherever packed).
    var focusIsInside: Bool {
        guard let root = gtk_widget_get_root(widget), let focus = gtk_root_get_focus(root) else { return false }
        return [widget, startBox, titleBox, endBox].contains { gtk_widget_is_ancestor(focus, $0) != 0 || focus == $0 }
    }
}
