// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PhotoLibrary
import PickerModel

/// The window's smaller parts: the picks kept from last time, URIs and C strings, and the
/// startup trace's frames.
extension PickerWindow {
    /// The app from the menu picks again what was picked when it last closed: the picker restores
    /// them (`picked-uris`; those a first run has not found yet as its scan finds them, those on a
    /// disk not plugged in when it is); the window says what came back and what did not, and
    /// keeps those still away for next time.
    static func restorePicks(_ uris: [String], in picker: OpaquePointer, session: Session) {
        guard !uris.isEmpty else { return }
        let kept = KeptPicks(uris)
        session.keptPicks = kept
        uris.withCStringArray { photopick_picker_set_picked_uris(picker, $0) }
        let restored = Int(photopick_picker_get_picked_count(picker))
        if restored > 0 {
            // (Two videos and a photo are three items, not three photos.)
            var names: [[UInt8]] = []
            if let list = photopick_picker_get_picked_uris(picker) {
                var index = 0
                while let uri = list[index] {
                    names.append(Array(String(cString: uri).split(separator: "/").last.map { Array($0.utf8) } ?? []))
                    index += 1
                }
                g_strfreev(list)
            }
            photopick_picker_show_message(picker, stillPicked(names: names, count: restored))
        }
        let (gone, away) = kept.missing()
        if gone > 0 {
            tell(ni18n("{count} photo picked last time is no longer in the library", "{count} photos picked last time are no longer in the library", gone), in: picker)
        }
        if away > 0 {
            tell(ni18n("{count} photo picked last time is on a disk that is not connected: it stays picked for when the disk is back",
                       "{count} photos picked last time are on a disk that is not connected: they stay picked for when the disk is back", away), in: picker)
        }
    }

    /// "3 photos are still picked from last time"; videos, or items when they are of both kinds
    /// (two videos and a photo were called three photos: issue 40, point 15).
    nonisolated static func stillPicked(names: [[UInt8]], count: Int) -> String {
        let videos = names.filter { ContentType.guess(fileName: $0).isVideo }.count
        if videos == 0 { return ni18n("{count} photo is still picked from last time", "{count} photos are still picked from last time", count) }
        if videos == names.count { return ni18n("{count} video is still picked from last time", "{count} videos are still picked from last time", count) }
        return ni18n("{count} item is still picked from last time", "{count} items are still picked from last time", count)
    }

    static func fileURI(_ path: FilePath) -> String? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// A `file://` URI's path, or a location URI itself (`sftp://…`, a photo on another machine
    /// answered by its URI).
    nonisolated static func path(ofURI uri: String) -> FilePath? {
        let given = FilePath(uri)
        if given.isLocationURI { return given }
        guard let path = g_filename_from_uri(uri, nil, nil) else { return nil }
        defer { g_free(path) }
        return FilePath(bytes: Array(UnsafeRawBufferPointer(start: path, count: strlen(path))))
    }

    /// A NULL-terminated vector's strings (`freeing`: a new vector, freed here).
    static func strings(_ vector: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] { [String](cStrings: vector) }

    static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, freeing: Bool) -> [String] {
        defer { if freeing { g_strfreev(vector) } }
        return strings(UnsafeRawPointer(vector).map { $0.assumingMemoryBound(to: UnsafePointer<CChar>?.self) })
    }

    /// Paths as a NULL-terminated vector of C strings, byte for byte (a name that is not UTF-8
    /// stays itself).
    static func withCStrings<R>(_ paths: [FilePath], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = paths.map { path in path.withCString { strdup($0) } }
        defer { copies.forEach { free($0) } }
        let array = copies.map { UnsafePointer($0) } + [nil]
        return array.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// PHOTOPICK_TRACE_STARTUP: when the window maps and its first frames are drawn.
    static func traceFirstFrames(of window: UnsafeMutablePointer<GtkWidget>) {
        Signal.connect(window.raw, "map") { () -> Void in
            StartupTrace.mark("mapped")
            guard let clock = gtk_widget_get_frame_clock(window) else { return }
            Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") { () -> Void in
                let frame = gdk_frame_clock_get_frame_counter(clock)
                if frame < 3 { StartupTrace.mark("frame \(frame) drawn") }
            }
        }
    }
}

/// The app from the menu's picks of last time, as the window found them at launch: a pick whose
/// folder is missing (a disk not plugged in) waits for it, and is kept for the next launch until
/// it is picked again; one whose folder is there without its file is gone. (Issue 37: a folder
/// missing at launch threw away every pick, and the next quit saved none.)
struct KeptPicks {
    /// All of them, in their order.
    private let saved: [String]
    /// Those on a disk that was not plugged in at launch.
    private let away: [String]

    init(_ uris: [String]) {
        saved = uris
        away = uris.filter { uri in
            guard let path = PickerWindow.path(ofURI: uri), !path.isLocationURI else { return false }
            var info = stat()
            return path.withCString { lstat($0, &info) } != 0 && !path.parent.isDirectory
        }
    }

    /// How many are gone (their folder there, their file not) and how many are away.
    func missing() -> (gone: Int, away: Int) {
        let gone = saved.filter { uri in
            guard let path = PickerWindow.path(ofURI: uri) else { return true }
            if path.isLocationURI { return false }
            var info = stat()
            return path.withCString { lstat($0, &info) } != 0 && path.parent.isDirectory
        }.count
        return (gone, away.count)
    }

    /// What to keep for the next launch: `picked` (this launch's picks, in pick order) with each
    /// pick still away put back after the last of those saved before it, so the order of last
    /// time holds when the disk is back.
    func kept(with picked: [String]) -> [String] {
        var kept = picked
        for uri in away where !kept.contains(uri) {
            let before = Set(saved.prefix { $0 != uri })
            let place = kept.lastIndex { before.contains($0) }.map { $0 + 1 } ?? 0
            kept.insert(uri, at: place)
        }
        return kept
    }
}

extension Signal {
    /// A signal with a string vector: PhotopickPicker's confirmed.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, uris handler: @escaping @MainActor ([String]) -> Void) -> gulong {
        connect(instance, signal, object: { vector in
            handler(PickerWindow.strings(UnsafeRawPointer(vector).assumingMemoryBound(to: UnsafePointer<CChar>?.self)))
        })
    }

    /// A signal with two strings: PhotopickPicker's pick-copied.
    @discardableResult
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, strings handler: @escaping @MainActor (String, String) -> Void) -> gulong {
        let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = { _, first, second, data in
            let handler: @MainActor (String, String) -> Void = Signal.handler(data)
            let strings = (first.map { String(cString: $0) } ?? "", second.map { String(cString: $0) } ?? "")
            MainActor.assumeIsolated { handler(strings.0, strings.1) }
        }
        return connect(instance, signal, thunk: unsafeBitCast(thunk, to: GCallback.self), handler: handler)
    }
}
