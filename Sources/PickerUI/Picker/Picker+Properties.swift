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
extension Picker {
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

    /// Every 0.3 property, as the library opens (the build reads them all: the last value set wins).
    func applyProperties() {
        for name in Self.partProperties { apply(name) }
    }

    static let partProperties = ["cancel-label", "show-cancel", "title", "enter-confirms", "accepts-typed-paths",
                                 "cell-size", "capture-folder", "copy-remote-picks", "date"]

    /// One 0.3 property changed; false for another property.
    @discardableResult
    func apply(_ property: String) -> Bool {
        guard controller != nil else { return Self.partProperties.contains(property) }
        switch property {
        case "cancel-label":
            gtk_button_set_label(cancelButton.cast(), Self.shortened(stringProperty(property) ?? i18n("Cancel")))
        case "show-cancel":
            let shown = booleanProperty(property)
            gtk_widget_set_visible(cancelButton, shown ? 1 : 0)
            // (Without the button, Escape does not end the picker either: the window's own means do.)
            escapeCancels = shown
        case "title":
            title = stringProperty(property).map(Self.shortened) ?? ""
        case "enter-confirms":
            enterConfirms = booleanProperty(property)
        case "accepts-typed-paths":
            onTypedPath = booleanProperty(property) ? { [weak self] path in self?.typed(path) } : nil
        case "cell-size":
            let size = unsignedProperty(property)
            setCellSize(size == 0 ? 120 : Self.nearestCellSize(size))
            // (The property says the size in use: the default's, or the step nearest the one asked.)
            setProperty(property, unsigned: photoGrid.cellSize)
        case "capture-folder":
            captureFolder = stringProperty(property).map { given in
                let folder = FilePath(given)
                return RemoteFiles.localPath(ofFileURI: folder) ?? folder.absolute()
            } ?? CaptureWriter.defaultFolder
        case "copy-remote-picks":
            controller.fetchesRemotePicks = booleanProperty(property)
        case "date":
            dateChanged()
        default:
            return false
        }
        return true
    }

    /// The zoom step nearest to a size a program asked for.
    static func nearestCellSize(_ size: Int) -> Int {
        Picker.cellSizes.min { abs($0 - size) < abs($1 - size) }!
    }

    /// A label a program gave, cut to `labelLimit` characters.
    static func shortened(_ label: String) -> String {
        label.count > labelLimit ? String(label.prefix(labelLimit - 1)) + "…" : label
    }

    /// What the person changes follows in the properties: the zoom, the camera switched to.
    func followPersonsChoices() {
        photoGrid.onCellSizeChanged = { [weak self] size in self?.setProperty("cell-size", unsigned: size) }
        cameraObservation = controller.camera?.observe { [weak self] event in
            guard case .status = event, let self, let chosen = self.controller?.camera?.chosenCamera else { return }
            self.setProperty("camera", string: chosen.path.displayString)
        }
    }

    /// A file typed in the location bar (accepts-typed-paths): the answer, alone.
    private func typed(_ path: FilePath) {
        guard let uri = Self.uri(of: path) else { return }
        emitConfirmed([uri])
    }

    // MARK: The library's properties, the filters and the labels (read through the shell's getters)

    // MARK: Properties

    /// The folders given: paths, or URIs as GFile and GtkFileChooser give them (`file://` ones
    /// as their paths; a file:// URI was taken for a relative path and showed nothing).
    var libraryFolders: [FilePath] {
        // (Byte for byte: a folder's name that is not UTF-8 stays itself.)
        cStrings(shell.get_library_folders(picker)).map { given in
            let folder = FilePath(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(given).assumingMemoryBound(to: UInt8.self), count: strlen(given))))
            return RemoteFiles.localPath(ofFileURI: folder) ?? folder.absolute()
        }
    }
    var mimeTypes: [String] { strings(shell.get_mime_types(picker)) }
    var filterOfProperties: AssetFilter {
        AssetFilter(mimeTypes: mimeTypes, namePatterns: strings(shell.get_name_patterns(picker)), choice: chosenFilter?.choice)
    }

    func applyFilter() {
        filterName = chosenFilter?.name
        filter = filterOfProperties
    }
    var albumName: String? { shell.get_album(picker).map { String(cString: $0) } }

    func cStrings(_ vector: UnsafePointer<UnsafePointer<CChar>?>?) -> [UnsafePointer<CChar>] {
        guard var cursor = vector else { return [] }
        var strings: [UnsafePointer<CChar>] = []
        while let string = cursor.pointee {
            strings.append(string)
            cursor += 1
        }
        return strings
    }

    func strings(_ vector: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] { [String](cStrings: vector) }

    /// The most library folders a picker takes: more cost the host seconds (10,000 blocked it for
    /// 10-14 s) and are no one's library.
    static let folderLimit = 256
    /// The most characters of a label shown: a label of a million characters made a window wider
    /// than X allows, which ended the host (BadAlloc).
    static let labelLimit = 64

    func applyConfirmLabel() {
        confirmLabel = Self.shortened(shell.get_confirm_label(picker).map { String(cString: $0) } ?? i18n("Add"))
    }

    /// Choose Folder… in the empty picker, as the program offers it (issue 38, point 12).
    func applyShowChooseFolder() {
        guard controller != nil, !isHosted else { return }
        onChooseFolder = shell.get_show_choose_folder(picker) != 0 ? { [weak self] folder in self?.folderChosen(folder) } : nil
        updateEmptyState()
    }

    /// The folder chosen joins the picker's: the person's own, remembered for later (as the
    /// program keeps it), or the host's list (library-folders changes, and is notified).
    func folderChosen(_ folder: FilePath) {
        let given = strings(shell.get_library_folders(picker))
        if given.isEmpty {
            do {
                try LibraryFolders.add(folder)
            } catch {
                DeveloperLog.say("\(error)")
                report(i18n("The folder cannot be remembered"), printing: false)
                return
            }
            // (After the chooser's answer is over: the grid that asked goes.)
            MainLoopDispatcher.shared.post { [weak self] in self?.build() }
        } else {
            let folders = given + [folder.displayString]
            folders.withCStringArray { array in
                array.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: folders.count + 1) {
                    shell.set_library_folders(picker, $0)
                }
            }
        }
    }

    func applyShowHeader() {
        let shown = shell.get_show_header(picker) != 0
        // While the row is hidden the boxes are the host's to pack (get_header_widgets); they come
        // back when it is shown again, unless the host still has them.
        if shown {
            if gtk_widget_get_parent(startBox) == nil { gtk_center_box_set_start_widget(header.opaque, startBox) }
            if gtk_widget_get_parent(titleBox) == nil { gtk_center_box_set_center_widget(header.opaque, titleBox) }
            if gtk_widget_get_parent(endBox) == nil { gtk_center_box_set_end_widget(header.opaque, endBox) }
        } else {
            if gtk_widget_get_parent(startBox) == header { gtk_center_box_set_start_widget(header.opaque, nil) }
            if gtk_widget_get_parent(titleBox) == header { gtk_center_box_set_center_widget(header.opaque, nil) }
            if gtk_widget_get_parent(endBox) == header { gtk_center_box_set_end_widget(header.opaque, nil) }
        }
        gtk_widget_set_visible(header, shown ? 1 : 0)
    }

    /// A property changed after construction.
    func changed(_ property: String) {
        // (Before the build, the build reads every property: the last value wins.)
        if property == "filters" || property == "filter" { followFilters() }
        guard isBuilt else {
            if property == "show-header" { applyShowHeader() }
            return
        }
        switch property {
        // (The benchmark made the library: it has no other.)
        case "library-folders", "show-camera": if !isHosted { build() }
        case "max-picks":
            let maximum = Int(shell.get_max_picks(picker))
            selection.maximum = maximum > 0 ? maximum : nil
            updateConfirmButton()
        case "mime-types", "name-patterns", "filter", "filters": applyFilter()
        case "album": openAlbum(fallingBack: false)
        case "show-header": applyShowHeader()
        case "confirm-label": applyConfirmLabel()
        case "show-choose-folder": applyShowChooseFolder()
        case "camera":
            guard let camera = controller?.camera, let name = stringProperty(property),
                  let chosen = CameraDevices.choose(name, from: camera.cameras), chosen != camera.current else { return }
            camera.switchCamera(to: chosen)
        default: apply(property)
        }
    }
}
