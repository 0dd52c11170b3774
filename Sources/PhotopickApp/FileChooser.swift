// SPDX-License-Identifier: GPL-3.0-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

/// GTK's own file chooser, for the zenity lines a photo picker is not for: `--save`,
/// `--directory`, or filters that admit no photo or video type (`*.pdf`, `*.zip`). A script that
/// swaps `zenity` for `photopick` everywhere then keeps working: the same question, zenity's
/// output and exit status. It is a GtkFileChooserNative: the desktop's chooser through the
/// portal when there is one, GTK's dialog otherwise, as zenity's own.
@MainActor
public enum FileChooser {
    public enum Mode: Equatable, Sendable {
        case open(multiple: Bool)
        case save
        case folder
    }

    public struct Request {
        public var mode: Mode
        /// The window's title; nil for the mode's own (`defaultTitle`).
        public var title: String?
        /// zenity's `--filename`: a folder to start in, or a file (for saving, its name is proposed).
        public var filename: FilePath?
        public var filters: [PickerWindow.FileFilter]
        public var acceptLabel: String?
        public var cancelLabel: String?
        public var timeout: Int?
        /// Say on standard error what GTK notes about the dialog (`--verbose`).
        public var saysNotices = false

        public init(mode: Mode, title: String?, filename: FilePath? = nil, filters: [PickerWindow.FileFilter] = [],
                    acceptLabel: String? = nil, cancelLabel: String? = nil, timeout: Int? = nil) {
            self.mode = mode
            self.title = title
            self.filename = filename
            self.filters = filters
            self.acceptLabel = acceptLabel
            self.cancelLabel = cancelLabel
            self.timeout = timeout
        }
    }

    public enum Outcome: Equatable {
        case chosen([FilePath])
        case cancelled
        case timedOut
        case noDisplay
    }

    /// What the window is called when the script gives no `--title`: what it asks for.
    /// (zenity's GTK 3 chooser is titled "zenity", its program's name, which says nothing.)
    public static func defaultTitle(_ mode: Mode) -> String {
        switch mode {
        case .open(multiple: false): return i18n("Choose a File")
        case .open(multiple: true): return i18n("Choose Files")
        case .save: return i18n("Save File")
        case .folder: return i18n("Choose a Folder")
        }
    }

    /// Whether a filter admits a photo or video: a pattern whose suffix names such a type, or one
    /// without a fixed suffix (`*`, `IMG_*`), which could match anything.
    nonisolated public static func admitsMedia(_ filter: PickerWindow.FileFilter) -> Bool {
        filter.patterns.contains { ContentType.guess(namePattern: $0)?.isMedia ?? true }
    }

    /// Shows the chooser and waits for the answer.
    public static func run(_ request: Request) -> Outcome {
        quietsParentlessDialogMessage = !request.saysNotices
        // (A process gets one writer: GLib aborts on a second.)
        if !writerSet {
            writerSet = true
            g_log_set_writer_func(logWriter, nil, nil)
        }
        guard gtk_init_check() != 0 else { return .noDisplay }
        let action: GtkFileChooserAction
        switch request.mode {
        case .open: action = GTK_FILE_CHOOSER_ACTION_OPEN
        case .save: action = GTK_FILE_CHOOSER_ACTION_SAVE
        case .folder: action = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER
        }
        let chooser = gtk_file_chooser_native_new(request.title ?? defaultTitle(request.mode), nil, action, request.acceptLabel, request.cancelLabel)!
        defer { g_object_unref(UnsafeMutableRawPointer(chooser)) }
        let asChooser = chooser
        if case .open(let multiple) = request.mode { gtk_file_chooser_set_select_multiple(asChooser, multiple ? 1 : 0) }
        for filter in request.filters {
            let gtkFilter = filter.gtkFilter()
            gtk_file_chooser_add_filter(asChooser, gtkFilter)
            g_object_unref(UnsafeMutableRawPointer(gtkFilter))
        }

        final class Answer { var outcome: Outcome?; var loop: OpaquePointer? }
        let answer = Answer()
        answer.loop = g_main_loop_new(nil, 0)
        defer { g_main_loop_unref(answer.loop) }
        Signal.connect(UnsafeMutableRawPointer(chooser), "response", response: { response in
            if response == GTK_RESPONSE_ACCEPT.rawValue {
                answer.outcome = .chosen(Self.files(of: asChooser))
            } else {
                answer.outcome = .cancelled
            }
            g_main_loop_quit(answer.loop)
        })
        let timer = MainLoopSource()
        if let seconds = request.timeout {
            timer.schedule(after: guint(min(seconds, 40 * 86_400)) * 1000, priority: G_PRIORITY_DEFAULT) {
                answer.outcome = .timedOut
                gtk_native_dialog_hide(UnsafeMutableRawPointer(chooser).assumingMemoryBound(to: GtkNativeDialog.self))
                g_main_loop_quit(answer.loop)
            }
        }
        if let path = request.filename { start(asChooser, at: path, mode: request.mode) }
        gtk_native_dialog_show(UnsafeMutableRawPointer(chooser).assumingMemoryBound(to: GtkNativeDialog.self))
        g_main_loop_run(answer.loop)
        timer.cancel()
        return answer.outcome ?? .cancelled
    }

    /// GTK 4 notes on standard error that a dialog without a parent window is discouraged; a
    /// script's chooser is a question of its own, with no window of ours to belong to (zenity's
    /// GTK 3 chooser says nothing of it). Kept for `--verbose`; every other message passes on.
    nonisolated(unsafe) private static var quietsParentlessDialogMessage = true
    private static var writerSet = false

    private static let logWriter: GLogWriterFunc = { level, fields, count, data in
        if FileChooser.quietsParentlessDialogMessage, let fields {
            for index in 0..<Int(count) where String(cString: fields[index].key) == "MESSAGE" {
                let field = fields[index]
                guard let value = field.value else { continue }
                let text = field.length < 0 ? String(cString: value.assumingMemoryBound(to: CChar.self))
                    : String(decoding: UnsafeRawBufferPointer(start: value, count: Int(field.length)), as: UTF8.self)
                if text.hasPrefix("GtkDialog mapped without a transient parent") { return G_LOG_WRITER_HANDLED }
            }
        }
        return g_log_writer_default(level, fields, count, data)
    }

    /// zenity's `--filename`: a folder opens there, a file's folder opens (for saving, its name is
    /// proposed), a name that does not exist opens its nearest folder. (GTK 4.8's dialog, given a
    /// file to select before it shows, opens its folder's parent instead: the file is not
    /// selected, and Enter does not choose it as zenity's GTK 3 chooser does.)
    private static func start(_ chooser: OpaquePointer, at path: FilePath, mode: Mode) {
        var folder = path.isDirectory ? path : path.parent
        while folder.bytes.count > 1, !folder.isDirectory { folder = folder.parent }
        if let file = folder.withCString({ g_file_new_for_path($0) }) {
            gtk_file_chooser_set_current_folder(chooser, file, nil)
            g_object_unref(UnsafeMutableRawPointer(file))
        }
        guard mode == .save, !path.isDirectory, path.bytes.last != UInt8(ascii: "/") else { return }
        gtk_file_chooser_set_current_name(chooser, String(decoding: path.lastComponent, as: UTF8.self))
    }

    /// The chosen files' local paths, in the chooser's order.
    private static func files(of chooser: OpaquePointer) -> [FilePath] {
        guard let list = gtk_file_chooser_get_files(chooser) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(list)) }
        var paths: [FilePath] = []
        for index in 0..<g_list_model_get_n_items(list) {
            guard let item = g_list_model_get_item(list, index) else { continue }
            defer { g_object_unref(item) }
            guard let path = g_file_get_path(OpaquePointer(item)) else { continue }
            paths.append(FilePath(bytes: Array(UnsafeRawBufferPointer(start: path, count: strlen(path)))))
            g_free(path)
        }
        return paths
    }
}
