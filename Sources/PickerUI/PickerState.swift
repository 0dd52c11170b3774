import CGtk
import PhotoLibrary

/// What the picker remembers between runs: the last album, the thumbnail size, the window size
/// and the camera chosen in the capture view; and one setting, `camera-always-shown` (the camera
/// cell even with no camera, saying so). A key file, `$XDG_STATE_HOME/photopick/state.ini`: GSettings needs a compiled, installed
/// schema, which an uninstalled run from a checkout does not have.
struct PickerState {
    var album: String?
    var cellSize: Int?
    var windowWidth: Int?
    var windowHeight: Int?
    /// The camera last chosen in the capture view's switcher (its device node).
    var camera: String?
    var cameraAlwaysShown = false

    static var file: FilePath { XDGDirectories.stateHome.appending("photopick/state.ini") }

    static func load() -> PickerState {
        var state = PickerState()
        guard let keyFile = g_key_file_new() else { return state }
        defer { g_key_file_free(keyFile) }
        guard file.withCString({ g_key_file_load_from_file(keyFile, $0, G_KEY_FILE_NONE, nil) }) != 0 else { return state }
        func string(_ key: String) -> String? {
            guard let value = g_key_file_get_string(keyFile, "picker", key, nil) else { return nil }
            defer { g_free(value) }
            return String(cString: value)
        }
        func integer(_ key: String) -> Int? { string(key).flatMap { Int($0) } }
        state.album = string("album")
        state.camera = string("camera")
        state.cameraAlwaysShown = string("camera-always-shown") == "true"
        // The file may have been edited by hand or written by something else: a size GTK cannot
        // take (3000000000 traps on the way to a C int, a negative one is a GTK critical) is
        // forgotten, and the cell size is brought into the range the grid offers.
        state.cellSize = integer("cell-size").map { min(max($0, PickerView.cellSizes.first!), PickerView.cellSizes.last!) }
        state.windowWidth = integer("window-width").flatMap { windowSides.contains($0) ? $0 : nil }
        state.windowHeight = integer("window-height").flatMap { windowSides.contains($0) ? $0 : nil }
        return state
    }

    /// Window sides that are remembered, in pixels.
    static let windowSides = 360...16384

    /// Saves quietly: a read-only state folder only means nothing is remembered.
    func save() {
        guard let keyFile = g_key_file_new() else { return }
        defer { g_key_file_free(keyFile) }
        if let album { g_key_file_set_string(keyFile, "picker", "album", album) }
        if let cellSize { g_key_file_set_integer(keyFile, "picker", "cell-size", Int32(clamping: cellSize)) }
        if let windowWidth { g_key_file_set_integer(keyFile, "picker", "window-width", Int32(clamping: windowWidth)) }
        if let windowHeight { g_key_file_set_integer(keyFile, "picker", "window-height", Int32(clamping: windowHeight)) }
        if let camera { g_key_file_set_string(keyFile, "picker", "camera", camera) }
        if cameraAlwaysShown { g_key_file_set_string(keyFile, "picker", "camera-always-shown", "true") }
        let folder = Self.file.parent
        _ = folder.withCString { g_mkdir_with_parents($0, 0o700) }
        _ = Self.file.withCString { g_key_file_save_to_file(keyFile, $0, nil) }
    }
}
