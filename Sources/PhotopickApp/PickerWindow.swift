// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGtk
import Glibc
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel

/// Runs the picker in its own window: `photopick` with no command. Prints nothing itself: the
/// caller gets the picked files (in pick order), or hears that it was cancelled or timed out.
///
/// The window is a host of the PhotopickPicker widget like any other program (README,
/// "Embedding"): it makes the picker with photopick_picker_new (), sets its properties, packs its
/// header widgets in the header bar and listens to confirmed and cancelled. This target cannot
/// see the widget's insides (PickerUI), so what the program needs of the picker is the public API.
@MainActor
public enum PickerWindow {
    /// How the window ended.
    public enum Outcome {
        /// Confirmed: the answer's files in order (a photo on another machine at its local copy's
        /// path when `fetchesRemotePicks`, else by its own URI).
        case picked([PickedFile])
        /// Cancel, Escape or the window closed.
        case cancelled
        /// `timeout` seconds went by first.
        case timedOut
        /// The app from the menu was already running: its window was presented instead.
        case handedToRunningApp
        /// No display could be opened (nothing was shown).
        case noDisplay
        /// `beforeShowing` said why the window cannot show (nothing was shown).
        case failed(String)
        /// SIGTERM, SIGINT or SIGHUP ended the window (a session ending, `timeout`, Ctrl+C): the
        /// caller ends by the same signal once its library is put away.
        case stopped(signal: Int32)
    }

    /// One file of the answer: where it is, and the library's row of the photo picked (none for a
    /// path typed with Ctrl+L that the library does not hold).
    public struct PickedFile {
        public let path: FilePath
        public let asset: Asset?
    }

    /// The application id: the desktop file's name, the D-Bus name, the icon's name.
    public static let applicationID = "io.github.photopick.Photopick"

    /// A choice of the filter list in the header (zenity's `--file-filter`): a name and the
    /// shell patterns of the file names it shows.
    public struct FileFilter: Equatable, Sendable {
        public let name: String
        public let patterns: [String]
        public init(name: String, patterns: [String]) {
            self.name = name
            self.patterns = patterns
        }

        /// As GTK's choosers and the picker take it (a new reference).
        func gtkFilter() -> OpaquePointer {
            let filter = gtk_file_filter_new()!
            gtk_file_filter_set_name(filter, name)
            for pattern in patterns { gtk_file_filter_add_pattern(filter, pattern) }
            return filter
        }
    }

    public struct Options {
        /// The library's own folders are the person's (the default folders), not folders a script
        /// named: the picker is then given none, and shows (and adds to) the person's own.
        public var ofDefaultFolders = true
        /// The live camera as the first cell, when there is a camera (none: no cell).
        public var showsCamera = true
        /// The camera to use (`--camera`: a device node or a name); nil for the first.
        public var cameraDevice: String?
        /// Where captures are saved; nil for the picker's default (Pictures/Camera).
        public var captureFolder: FilePath?
        public var maximum: Int?
        public var title = i18n("Pick Photos")
        public var confirmLabel = i18n("Add")
        public var cancelLabel = i18n("Cancel")
        /// Choices offered in the header; the first is applied at start. Empty: no filter list.
        public var fileFilters: [FileFilter] = []
        /// MIME type patterns every album is limited to (`--mime-type`); empty for all.
        public var mimeTypes: [String] = []
        /// A file to scroll to and focus at start (`--filename FILE`).
        public var focusedPath: FilePath?
        /// The window's size at start, instead of the remembered one.
        public var width: Int?
        public var height: Int?
        /// Closes the window after this many seconds (the outcome is `.timedOut`).
        public var timeout: Int?
        /// Modal for the window it is attached to.
        public var modal = false
        /// The program's version, for the app's About window.
        public var version = ""
        /// Enter confirms, as in a file chooser (zenity's `--file-selection`, `--multiple` too):
        /// the picks, or the focused photo when nothing is picked. Otherwise Enter picks.
        public var enterConfirms = false
        /// Another program's X11 window to stay above (`--attach`).
        public var parentXID: UInt?
        /// The album to open, as the picker's `album` property takes it (a name, a folder's name
        /// and a slash, "folder:ID"); nil for Recents, or for the remembered album when
        /// `restoresAlbum`.
        public var album: String?
        /// Launched from the desktop's app menu: reopen the album of last time. A script's
        /// picker opens on Recents (or `album`), as phones' pickers do.
        public var restoresAlbum = false
        /// The app from the menu: the picks are copied to the clipboard, opened or copied to a
        /// folder, and the window stays; a script's picker returns them and closes.
        public var isDesktopApp = false
        /// Picks on another machine are copied here as they are picked, and the answer waits
        /// for their copies; off when the answer is their URIs (`--uri`).
        public var fetchesRemotePicks = true
        /// Asked once on the GTK thread, as the first window is about to be made: a sentence
        /// instead ends the run with `.failed(sentence)`. A check that takes a while (a folder on
        /// another machine, mounted to be checked) runs meanwhile, beside GTK's start.
        public var beforeShowing: (() -> String?)?
        /// Started by D-Bus activation (`--gapplication-service`): the window opens when the
        /// desktop asks for it.
        public var isDBusService = false
        /// The window's icon (zenity's `--window-icon`): an icon name, or an image file.
        public var icon: WindowIcon?
        public init() {}
    }

    public enum WindowIcon: Equatable, Sendable {
        case named(String)
        case file(FilePath)

        /// zenity's words for its dialogs' icons, as zenity maps them; any other word an icon
        /// name; a path (a slash in it) a file.
        public init(_ given: FilePath) {
            let text = String(decoding: given.bytes, as: UTF8.self)
            let zenity = ["info": "dialog-information", "warning": "dialog-warning", "question": "dialog-question", "error": "dialog-error"]
            if let name = zenity[text] {
                self = .named(name)
            } else if given.bytes.contains(UInt8(ascii: "/")) || given.isRegularFile {
                self = .file(given.absolute())
            } else {
                self = .named(text)
            }
        }

        /// Whether it can be shown: a name, or a file that is there and not larger than an icon
        /// file is (a script's own icon; a megabyte at most, read in this process as zenity does).
        public var isUsable: Bool {
            guard case .file(let path) = self else { return true }
            var info = stat()
            return path.withCString { stat($0, &info) } == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size <= 1 << 20
        }

        /// Sets it on a window before it is shown. A file's picture goes to the window's surface
        /// once it is realized: GTK 4 names a window's icon only from the icon theme, and 4.8
        /// finds no unthemed file added to its search path (measured: `has_icon` false).
        @MainActor func apply(to window: UnsafeMutablePointer<GtkWindow>) {
            switch self {
            case .named(let name):
                gtk_window_set_icon_name(window, name)
            case .file(let path):
                guard isUsable, let texture = path.withCString({ gdk_texture_new_from_filename($0, nil) }) else { return }
                // (After GTK's own realize, which sets the default icon list.)
                Signal.connect(UnsafeMutableRawPointer(window), "realize", after: true) { () -> Void in
                    guard let surface = gtk_native_get_surface(OpaquePointer(window)) else { return }
                    let list = g_list_append(nil, UnsafeMutableRawPointer(texture))
                    gdk_toplevel_set_icon_list(surface, list)
                    g_list_free(list)
                }
                // (The window keeps the texture: one icon, for the process's life.)
            }
        }
    }

    final class Session {
        var outcome = Outcome.cancelled
        /// The window now (a second activation presents it).
        var window: UnsafeMutablePointer<GtkWidget>?
        /// The library the answer's rows come from (the picker opens its own view of the same
        /// index; a folder chosen from the empty state opens another, followed here).
        var library: PhotoLibrary
        /// The scan of the first window's library, started before GTK starts up: the picker
        /// joins it (LibraryService shares one scan per library in a process).
        var earlyScan: PickerController?
        /// The app from the menu's picks of last time, and which are still away.
        var keptPicks: KeptPicks?
        /// Remote picks' local copies (pick-copied): the copy's URI, the pick's own.
        var copyOrigins: [String: String] = [:]
        var options: Options
        /// When `run` began (monotonic seconds): a `timeout` counts from here, whatever the
        /// start-up waited for.
        let began = monotonicSeconds()
        init(library: PhotoLibrary, options: Options) {
            self.library = library
            self.options = options
        }
    }

    /// The smallest window: a phone's width, room for the header, two rows and the strip.
    static let minimumWidth = 360, minimumHeight = 360

    /// Shows the window until the person confirms or cancels, or the timeout.
    public static func run(library: PhotoLibrary, options: Options = Options()) -> Outcome {
        let session = Session(library: library, options: options)
        // AdwApplication: its style manager follows the desktop's dark, high-contrast and
        // accent settings, and its stylesheet gives the named colours the picker's CSS uses.
        // The app from the menu is one per user: a second launch hands its activation to the
        // running one over D-Bus, which presents its window. A script's picker always runs in
        // its own process, to give its own answer.
        var flags = options.isDesktopApp ? G_APPLICATION_DEFAULT_FLAGS : G_APPLICATION_NON_UNIQUE
        if options.isDBusService { flags = GApplicationFlags(flags.rawValue | G_APPLICATION_IS_SERVICE.rawValue) }
        // The scan is what a first run waits for, and GTK takes 0.2-0.4 s to start up: it starts
        // first, on the library the first window shows. (A service started by D-Bus waits until it
        // is asked for a window.)
        if !options.isDBusService {
            // Meanwhile the thumbnails the last window of this library showed first are read
            // into memory, for this one's first frame (FirstScreenHint).
            withCStrings(pickerFolders(session)) { photopick_implementation_preload($0) }
            startScanEarly(session)
        }
        // (GtkApplication would end the process when it cannot open one.)
        guard gtk_init_check() != 0 else {
            session.earlyScan?.close()
            return .noDisplay
        }
        StartupTrace.mark("display opened")
        IconTheme.loadEarly()
        StartupTrace.mark("libadwaita ready")
        let application = adw_application_new(applicationID, flags)!
        // No resources: GtkApplication would add their icons folder to the icon theme, and so
        // throw away a theme loaded before (IconTheme).
        g_application_set_resource_base_path(application.cast(), nil)
        StartupTrace.mark("application made")
        defer { g_object_unref(application.raw) }
        Signal.connect(application.raw, "activate") {
            if let window = session.window {
                gtk_window_present(window.cast())
            } else {
                build(session, application: application)
            }
        }
        // "startup" runs only in the primary instance: a second launch of the app hands its
        // activation over and returns at once. (Without a session bus it runs on its own.)
        var startedHere = false
        Signal.connect(application.raw, "startup") { () -> Void in
            startedHere = true
            StartupTrace.mark("startup")
        }
        // A stop signal closes the window as Cancel does, so what follows the window still runs
        // (the index sealed: without that, the next start checked every page of it).
        let stops = [SIGTERM, SIGINT, SIGHUP].map { stop in
            MainLoop.onSignal(stop) { [weak session] in
                session?.outcome = .stopped(signal: stop)
                g_application_quit(application.cast())
                return true
            }
        }
        _ = g_application_run(application.cast(), 0, nil)
        for stop in stops { g_source_remove(stop) }
        session.earlyScan?.close()
        session.earlyScan = nil
        if !startedHere { return .handedToRunningApp }
        session.window = nil
        return session.outcome
    }

    /// The folders the picker is given: none for the person's own (it shows, and adds to, the
    /// default folders), else the library's.
    static func pickerFolders(_ session: Session) -> [FilePath] {
        session.options.ofDefaultFolders ? [] : session.library.roots
    }

    /// Starts the scan of the library the picker will show, in the service the picker will join
    /// (LibraryService.shared, by the same folders).
    private static func startScanEarly(_ session: Session) {
        let library = session.library
        let folders = LibraryService.folders(shownFor: pickerFolders(session))
        guard let service = try? LibraryService.shared(roots: folders, post: { MainLoopDispatcher.shared.post($0) }, open: { library }) else { return }
        let scan = PickerController(service: service, maximum: nil, camera: nil, showsCameraAtStart: false,
                                    post: { MainLoopDispatcher.shared.post($0) })
        scan.startScan()
        session.earlyScan = scan
    }

    static func build(_ session: Session, application: UnsafeMutablePointer<AdwApplication>) {
        StartupTrace.mark("activate")
        if let check = session.options.beforeShowing {
            session.options.beforeShowing = nil
            let failure = check()
            StartupTrace.mark("the library's folders checked")
            if let failure {
                session.outcome = .failed(failure)
                g_application_quit(application.cast())
                return
            }
        }
        let options = session.options
        let window = adw_application_window_new(application.cast(GtkApplication.self))!
        session.window = window
        Signal.connect(window.raw, "destroy") { [weak session] () -> Void in
            if session?.window == window { session?.window = nil }
        }
        gtk_window_set_title(window.cast(), options.title)
        options.icon?.apply(to: window.cast())
        let state = PickerState.load()
        let startWidth = options.width ?? state.windowWidth ?? 960, startHeight = options.height ?? state.windowHeight ?? 720
        gtk_window_set_default_size(window.cast(), Int32(max(startWidth, minimumWidth)), Int32(max(startHeight, minimumHeight)))
        let maximized = state.windowMaximized && options.width == nil && options.height == nil
        if maximized { gtk_window_maximize(window.cast()) }
        // Narrow enough for a phone-sized window, wide enough for the header's three controls.
        gtk_widget_set_size_request(window, Int32(minimumWidth), Int32(minimumHeight))

        let isApp = options.isDesktopApp
        let widget = makePicker(session, state: state)
        let picker = OpaquePointer(widget)
        // A picker's header: Cancel, the album, the primary action. No close button: Cancel is it.
        let header = adw_header_bar_new()!
        var start: UnsafeMutablePointer<GtkWidget>?, title: UnsafeMutablePointer<GtkWidget>?, end: UnsafeMutablePointer<GtkWidget>?
        photopick_picker_get_header_widgets(picker, &start, &title, &end)
        adw_header_bar_set_title_widget(header.opaque, title)
        // The app from the menu is a window like any other: the desktop's title buttons (its
        // decoration layout), Ctrl+W and Ctrl+Q; a script's picker is a dialog, closed by Cancel.
        adw_header_bar_set_show_start_title_buttons(header.opaque, isApp ? 1 : 0)
        adw_header_bar_set_show_end_title_buttons(header.opaque, isApp ? 1 : 0)
        adw_header_bar_pack_start(header.opaque, start)
        adw_header_bar_pack_end(header.opaque, end)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(content.cast(), header)
        gtk_box_append(content.cast(), widget)
        adw_application_window_set_content(window.cast(), content)

        let remember: @MainActor () -> Void = { [weak session] in
            guard let session else { return }
            var state = PickerState.load()
            // Only the app from the menu remembers its album: a script's Recents must not
            // replace the album the person left the app on.
            if session.options.restoresAlbum { state.album = photopick_picker_get_album(picker).map { String(cString: $0) } }
            let size = Int(photopick_picker_get_cell_size(picker))
            if size > 0 { state.cellSize = size }
            // (The camera the person switched to in the capture view; not one a script named.)
            let camera = photopick_picker_get_camera(picker).map { String(cString: $0) }
            if let camera, camera != session.options.cameraDevice ?? state.camera { state.camera = camera }
            // The app from the menu keeps its picks for the next launch: nothing waits for them,
            // and closing must not throw them away.
            if session.options.isDesktopApp {
                let picked = strings(photopick_picker_get_picked_uris(picker), freeing: true)
                // (With those of last time that still wait for their folder: a quit never loses them.)
                state.picked = session.keptPicks?.kept(with: picked) ?? picked
            }
            // A size a script asked for (--width, --height) is not the person's.
            if session.options.width == nil && session.options.height == nil {
                state.windowMaximized = gtk_window_is_maximized(window.cast()) != 0
                // (The default size is the size the window has when not maximized.)
                var width: Int32 = 0, height: Int32 = 0
                gtk_window_get_default_size(window.cast(), &width, &height)
                state.windowWidth = Int(width)
                state.windowHeight = Int(height)
            }
            state.save()
        }
        let close: @MainActor () -> Void = {
            remember()
            if isApp && FileClipboard.keepsServing(window: window, application: application) { return }
            gtk_window_destroy(window.cast())
        }
        // Closing from the title bar cancels, and the window remembers its state all the same.
        Signal.connect(window.raw, "close-request", stop: {
            remember()
            return isApp && FileClipboard.keepsServing(window: window, application: application)
        })
        // The local copies of remote picks: the answer names the photo picked, at its copy.
        Signal.connect(widget.raw, "pick-copied", strings: { [weak session] uri, copy in session?.copyOrigins[copy] = uri })
        if !isApp {
            // (The app from the menu copies instead, and stays: DesktopActions.)
            Signal.connect(widget.raw, "confirmed", uris: { [weak session] uris in
                guard let session else { return }
                session.outcome = .picked(answer(uris, session: session))
                close()
            })
        }
        if let seconds = options.timeout {
            // Owned by the window: it goes with it. (Counted from the start, as zenity does.)
            let timer = MainLoopSource()
            let left = max(0, Double(min(seconds, 40 * 86_400)) - (monotonicSeconds() - session.began))
            timer.schedule(after: guint(left * 1000), priority: G_PRIORITY_DEFAULT) { [weak session] in
                session?.outcome = .timedOut
                close()
            }
            attach(timer, to: window.raw, key: "photopick-timeout")
        }
        Signal.connect(widget.raw, "cancelled") { close() }
        // A folder chosen from the empty state joins the picker's (it opens them itself): the
        // answer's rows come from the library it shows now.
        Signal.connect(widget.raw, "notify::library-folders", object: { [weak session] _ in
            guard let session else { return }
            let folders = strings(photopick_picker_get_library_folders(picker)).map { FilePath($0) }
            if let library = try? PhotoLibrary(roots: folders) { session.library = library }
        })
        PickerActions.install(window: window, application: application.cast(GtkApplication.self), picker: widget,
                              desktop: isApp, camera: options.showsCamera, location: !isApp, close: close)
        if isApp {
            let desktop = DesktopActions(window: window, picker: widget, version: options.version)
            adw_header_bar_pack_end(header.opaque, desktop.menuButton)
        }
        // The picker is built now (its grab_focus builds it), before the window first shows: its
        // first frame has the album and, warm, every thumbnail in sight.
        _ = gtk_widget_grab_focus(widget)
        session.earlyScan?.close()
        session.earlyScan = nil
        for problem in ConfigurationFile.takeProblems() { tell(problem, in: picker) }
        if isApp { restorePicks(state.picked, in: picker, session: session) }
        if options.modal { gtk_window_set_modal(window.cast(), 1) }
        if let parent = options.parentXID {
            // Before the window is mapped, so the window manager places it over its parent.
            gtk_widget_realize(window)
            if photopick_window_set_transient_for_xid(window, UInt(parent)) == 0 {
                tell(i18n("--attach works on X11 only: the window is not attached"), in: picker)
            }
        }
        if StartupTrace.isOn { traceFirstFrames(of: window) }
        gtk_window_present(window.cast())
        StartupTrace.mark("presented")
        if let path = options.focusedPath, let uri = fileURI(path) { photopick_picker_reveal_uri(picker, uri) }
    }

    /// The picker as the options and the remembered state set it up.
    private static func makePicker(_ session: Session, state: PickerState) -> UnsafeMutablePointer<GtkWidget> {
        let options = session.options
        let widget = photopick_picker_new()!
        let picker = OpaquePointer(widget)
        withCStrings(pickerFolders(session)) { photopick_picker_set_library_folders(picker, $0) }
        // (The header's widgets go in the window's header bar.)
        photopick_picker_set_show_header(picker, 0)
        photopick_picker_set_max_picks(picker, guint(options.maximum ?? 0))
        photopick_picker_set_show_camera(picker, options.showsCamera ? 1 : 0)
        photopick_picker_set_camera(picker, options.cameraDevice ?? state.camera)
        if let folder = options.captureFolder { folder.withCString { photopick_picker_set_capture_folder(picker, $0) } }
        photopick_picker_set_title(picker, options.title)
        photopick_picker_set_confirm_label(picker, options.isDesktopApp ? i18n("Copy") : options.confirmLabel)
        photopick_picker_set_cancel_label(picker, options.cancelLabel)
        // The app from the menu closes by its title buttons, Ctrl+W and Ctrl+Q: no Cancel, and
        // Escape only goes back. A script's picker takes a typed path (Ctrl+L).
        photopick_picker_set_show_cancel(picker, options.isDesktopApp ? 0 : 1)
        photopick_picker_set_accepts_typed_paths(picker, options.isDesktopApp ? 0 : 1)
        photopick_picker_set_enter_confirms(picker, options.enterConfirms ? 1 : 0)
        photopick_picker_set_copy_remote_picks(picker, options.fetchesRemotePicks ? 1 : 0)
        options.mimeTypes.withCStringArray { photopick_picker_set_mime_types(picker, $0) }
        if let size = state.cellSize { photopick_picker_set_cell_size(picker, guint(size)) }
        // Shown for a single filter too, as zenity shows it: the person sees why files are hidden.
        for choice in options.fileFilters {
            let filter = choice.gtkFilter()
            photopick_picker_add_filter(picker, filter)
            g_object_unref(UnsafeMutableRawPointer(filter))
        }
        // The album of last time, if the library still has it (the picker would say it has not).
        let remembered = options.restoresAlbum ? state.album.flatMap { name in (try? session.library.album(named: name)) != nil ? name : nil } : nil
        if let album = options.album ?? remembered { photopick_picker_set_album(picker, album) }
        return widget
    }

    /// The confirmed URIs as the answer's files, with the library's rows.
    private static func answer(_ uris: [String], session: Session) -> [PickedFile] {
        uris.compactMap { uri in
            let picked = session.copyOrigins[uri] ?? uri
            guard let path = path(ofURI: uri) else { return nil }
            return PickedFile(path: path, asset: self.path(ofURI: picked).flatMap { try? session.library.asset(path: $0) })
        }
    }

    /// A sentence for the person (in the window) and for the log (standard error).
    static func tell(_ problem: String, in picker: OpaquePointer) {
        DeveloperLog.say(problem)
        photopick_picker_show_message(picker, problem)
    }
}
