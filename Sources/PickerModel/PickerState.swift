// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGLib
import PhotoLibrary

/// What the picker remembers between runs: the last album, the thumbnail size, the window's size
/// and whether it was maximized, and the camera chosen in the capture view; and one setting,
/// `camera-always-shown` (the camera cell even with no camera, saying so).
///
/// Kept in GSettings (`io.github.photopick.Photopick`) when its schema is installed, as GNOME
/// apps keep theirs; a run from a checkout has no installed schema and keeps them in a key file,
/// `$XDG_STATE_HOME/photopick/state.ini`, with the same key names.
public struct PickerState {
    public var album: String?
    public var cellSize: Int?
    public var windowWidth: Int?
    public var windowHeight: Int?
    public var windowMaximized = false
    /// The camera last chosen in the capture view's switcher (its device node).
    public var camera: String?
    public var cameraAlwaysShown = false
    /// The app from the menu's picks when it last closed, in pick order (file URIs, which carry
    /// any file name): closing it never throws picks away.
    public var picked: [String] = []

    public static let schemaID = "io.github.photopick.Photopick"
    public static var file: FilePath { XDGDirectories.stateHome.appending("photopick/state.ini") }

    /// Window sides that are remembered, in pixels.
    public static let windowSides = 360...16384
    /// The grid's cell sizes, in points, that zooming steps through.
    public static let cellSizes = [72, 96, 120, 160, 200, 256]

    /// Where the state lives on this machine.
    enum Store: Equatable {
        case settings
        case keyFile
    }

    static var store: Store {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, schemaID, 1) else { return .keyFile }
        g_settings_schema_unref(schema)
        return .settings
    }

    public static func load() -> PickerState {
        var state = PickerState()
        let values: StateValues? = store == .settings ? SettingsValues() : KeyFileValues(file)
        guard let values else { return state }
        state.album = values.string("album")
        state.camera = values.string("camera")
        state.cameraAlwaysShown = values.boolean("camera-always-shown")
        state.windowMaximized = values.boolean("window-maximized")
        state.picked = values.strings("picked")
        // The file may have been edited by hand or written by something else: a size GTK cannot
        // take (3000000000 traps on the way to a C int, a negative one is a GTK critical) is
        // forgotten, and the cell size is brought into the range the grid offers.
        state.cellSize = values.integer("cell-size").map { min(max($0, cellSizes.first!), cellSizes.last!) }
        state.windowWidth = values.integer("window-width").flatMap { windowSides.contains($0) ? $0 : nil }
        state.windowHeight = values.integer("window-height").flatMap { windowSides.contains($0) ? $0 : nil }
        return state
    }

    /// Saves quietly: a read-only state folder only means nothing is remembered.
    public func save() {
        if Self.store == .settings {
            SettingsValues().save(self)
        } else {
            KeyFileValues.save(self, to: Self.file)
        }
    }
}

/// The stored values, read by key; nil where nothing was stored (the default applies).
private protocol StateValues {
    func string(_ key: String) -> String?
    func integer(_ key: String) -> Int?
    func boolean(_ key: String) -> Bool
    func strings(_ key: String) -> [String]
}

/// GSettings: only values the person's use has set count (an unset key keeps today's default).
private final class SettingsValues: StateValues {
    private let settings: OpaquePointer

    init() { settings = OpaquePointer(g_settings_new(PickerState.schemaID)) }
    deinit { g_object_unref(UnsafeMutableRawPointer(settings)) }

    private var raw: UnsafeMutablePointer<GSettings> { UnsafeMutablePointer(settings) }

    private func userValue(_ key: String) -> OpaquePointer? { g_settings_get_user_value(raw, key) }

    func string(_ key: String) -> String? {
        guard let value = userValue(key) else { return nil }
        defer { g_variant_unref(value) }
        let text = String(cString: g_variant_get_string(value, nil))
        return text.isEmpty ? nil : text
    }

    func integer(_ key: String) -> Int? {
        guard let value = userValue(key) else { return nil }
        defer { g_variant_unref(value) }
        return Int(g_variant_get_int32(value))
    }

    func boolean(_ key: String) -> Bool { g_settings_get_boolean(raw, key) != 0 }

    func strings(_ key: String) -> [String] {
        guard let list = g_settings_get_strv(raw, key) else { return [] }
        defer { g_strfreev(list) }
        var values: [String] = []
        var index = 0
        while let item = list[index] { values.append(String(cString: item)); index += 1 }
        return values
    }

    func save(_ state: PickerState) {
        // Values outside a key's range are refused by GSettings; the state is clamped before.
        if let album = state.album { g_settings_set_string(raw, "album", album) }
        if let size = state.cellSize { g_settings_set_int(raw, "cell-size", Int32(clamping: size)) }
        if let width = state.windowWidth, PickerState.windowSides.contains(width) { g_settings_set_int(raw, "window-width", Int32(width)) }
        if let height = state.windowHeight, PickerState.windowSides.contains(height) { g_settings_set_int(raw, "window-height", Int32(height)) }
        g_settings_set_boolean(raw, "window-maximized", state.windowMaximized ? 1 : 0)
        if let camera = state.camera { g_settings_set_string(raw, "camera", camera) }
        _ = state.picked.withCStringArray { g_settings_set_strv(raw, "picked", $0) }
        g_settings_sync()
    }
}

/// The key file of a run from a checkout: group [picker], the schema's key names.
private final class KeyFileValues: StateValues {
    private let keyFile: OpaquePointer

    init?(_ file: FilePath) {
        // Read as configuration is (a named pipe here kept the window from ever appearing).
        guard let bytes = ConfigurationFile.read(file), let keyFile = g_key_file_new() else { return nil }
        guard bytes.withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_key_file_load_from_data(keyFile, $0.baseAddress, gsize($0.count), G_KEY_FILE_NONE, nil) }
        }) != 0 else {
            g_key_file_free(keyFile)
            return nil
        }
        self.keyFile = keyFile
    }

    deinit { g_key_file_free(keyFile) }

    func string(_ key: String) -> String? {
        guard let value = g_key_file_get_string(keyFile, "picker", key, nil) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    func integer(_ key: String) -> Int? { string(key).flatMap { Int($0) } }

    func boolean(_ key: String) -> Bool { string(key) == "true" }

    func strings(_ key: String) -> [String] {
        var length = 0
        guard let list = g_key_file_get_string_list(keyFile, "picker", key, &length, nil) else { return [] }
        defer { g_strfreev(list) }
        return (0..<length).compactMap { list[$0].map { String(cString: $0) } }
    }

    static func save(_ state: PickerState, to file: FilePath) {
        guard let keyFile = g_key_file_new() else { return }
        defer { g_key_file_free(keyFile) }
        if let album = state.album { g_key_file_set_string(keyFile, "picker", "album", album) }
        if let cellSize = state.cellSize { g_key_file_set_integer(keyFile, "picker", "cell-size", Int32(clamping: cellSize)) }
        if let width = state.windowWidth { g_key_file_set_integer(keyFile, "picker", "window-width", Int32(clamping: width)) }
        if let height = state.windowHeight { g_key_file_set_integer(keyFile, "picker", "window-height", Int32(clamping: height)) }
        if state.windowMaximized { g_key_file_set_string(keyFile, "picker", "window-maximized", "true") }
        if let camera = state.camera { g_key_file_set_string(keyFile, "picker", "camera", camera) }
        if state.cameraAlwaysShown { g_key_file_set_string(keyFile, "picker", "camera-always-shown", "true") }
        if !state.picked.isEmpty {
            state.picked.withCStringArray { g_key_file_set_string_list(keyFile, "picker", "picked", $0, gsize(state.picked.count)) }
        }
        let folder = file.parent
        // (Nothing is kept then: the next run opens as a first one.)
        guard XDGDirectories.refusalToMake(folder) == nil else { return }
        _ = folder.withCString { g_mkdir_with_parents($0, 0o700) }
        _ = file.withCString { g_key_file_save_to_file(keyFile, $0, nil) }
    }
}
