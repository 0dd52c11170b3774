// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib

/// What the person set and what the backend remembers, per app: `portal.conf`'s rules (which
/// apps always or never get the picker) and the album each app last picked from. On
/// xdg-desktop-portal 1.16 an app that is not sandboxed arrives with an empty id: such apps share
/// the name `host`.
public struct PortalPreferences {
    /// `$XDG_CONFIG_HOME/photopick/portal.conf`, the person's.
    public let rulesPath: FilePath
    /// `$XDG_STATE_HOME/photopick/portal-albums`, the backend's.
    public let albumsPath: FilePath

    public init(rulesPath: FilePath = XDGDirectories.configHome.appending("photopick/portal.conf"),
                albumsPath: FilePath = XDGDirectories.stateHome.appending("photopick/portal-albums")) {
        self.rulesPath = rulesPath
        self.albumsPath = albumsPath
    }

    /// The key an app is known by here.
    public static func key(_ appID: String) -> String { appID.isEmpty ? "host" : appID }

    /// The person's rule for `appID` in `[apps]`: `always` or `never` (anything else is logged
    /// and ignored). Read at each call: a change applies to the next question.
    public func rule(for appID: String) -> ChooserRoute.AppRule? {
        guard let value = Self.value(in: rulesPath, group: "apps", key: Self.key(appID)) else { return nil }
        guard let rule = ChooserRoute.AppRule(rawValue: value.lowercased()) else {
            DeveloperLog.sayOnce("portal: \(rulesPath): “\(Self.key(appID))=\(value)”: the rules are always and never")
            return nil
        }
        return rule
    }

    /// The album `appID` last picked from (the picker's `album` property), if any.
    public func album(for appID: String) -> String? {
        Self.value(in: albumsPath, group: "albums", key: Self.key(appID))
    }

    public func remember(album: String, for appID: String) {
        guard let file = g_key_file_new() else { return }
        defer { g_key_file_free(file) }
        _ = albumsPath.withCString { g_key_file_load_from_file(file, $0, G_KEY_FILE_KEEP_COMMENTS, nil) }
        g_key_file_set_string(file, "albums", Self.key(appID), album)
        var error: UnsafeMutablePointer<GError>?
        _ = albumsPath.parent.withCString { g_mkdir_with_parents($0, 0o700) }
        if albumsPath.withCString({ g_key_file_save_to_file(file, $0, &error) }) == 0 {
            DeveloperLog.sayOnce("portal: cannot keep the apps' albums in \(albumsPath): \(error.map { String(cString: $0.pointee.message) } ?? "")")
            g_error_free(error)
        }
    }

    private static func value(in path: FilePath, group: String, key: String) -> String? {
        guard let bytes = ConfigurationFile.read(path), let file = g_key_file_new() else { return nil }
        defer { g_key_file_free(file) }
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_key_file_load_from_data(file, $0.baseAddress, gsize($0.count), G_KEY_FILE_NONE, nil) }
        }
        guard loaded != 0, let value = g_key_file_get_string(file, group, key, nil) else { return nil }
        defer { g_free(value) }
        let text = String(cString: value).portalTrimmed
        return text.isEmpty ? nil : text
    }
}
