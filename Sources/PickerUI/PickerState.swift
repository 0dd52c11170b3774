import CGtk
import PhotoLibrary

/// What the picker remembers between runs: the last album, the thumbnail size and the window
/// size. A key file, `$XDG_STATE_HOME/photopick/state.ini`: GSettings needs a compiled, installed
/// schema, which an uninstalled run from a checkout does not have.
struct PickerState {
    var album: String?
    var cellSize: Int?
    var windowWidth: Int?
    var windowHeight: Int?

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
        state.cellSize = integer("cell-size")
        state.windowWidth = integer("window-width")
        state.windowHeight = integer("window-height")
        return state
    }

    /// Saves quietly: a read-only state folder only means nothing is remembered.
    func save() {
        guard let keyFile = g_key_file_new() else { return }
        defer { g_key_file_free(keyFile) }
        if let album { g_key_file_set_string(keyFile, "picker", "album", album) }
        if let cellSize { g_key_file_set_integer(keyFile, "picker", "cell-size", Int32(cellSize)) }
        if let windowWidth { g_key_file_set_integer(keyFile, "picker", "window-width", Int32(windowWidth)) }
        if let windowHeight { g_key_file_set_integer(keyFile, "picker", "window-height", Int32(windowHeight)) }
        let folder = Self.file.parent
        _ = folder.withCString { g_mkdir_with_parents($0, 0o700) }
        _ = Self.file.withCString { g_key_file_save_to_file(keyFile, $0, nil) }
    }
}
