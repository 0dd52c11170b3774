// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import PickerModel
import PhotoLibrary
import Thumbnails

/// Runs the picker in its own window: `photopick` with no command. Prints nothing itself: the
/// caller gets the picked assets (in pick order), or hears that it was cancelled or timed out.
@MainActor
public enum PickerWindow {
    /// How the window ended.
    public enum Outcome {
        /// Confirmed: the picked assets in pick order, and the local copies of those that live on
        /// another machine (by asset id; none when `fetchesRemotePicks` is off).
        case picked([Asset], copies: [Int64: FilePath])
        /// A file whose path the person typed (Ctrl+L), which the library may not hold.
        case typed(FilePath)
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
    }

    public struct Options {
        /// The live camera as the first cell, when there is a camera (none: no cell).
        public var showsCamera = true
        /// The camera to use (`--camera`: a device node or a name); nil for the first.
        public var cameraDevice: String?
        /// Where captures are saved.
        public var captureFolder = CaptureWriter.defaultFolder
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
        /// The album to open; nil for Recents, or for the remembered album when `restoresAlbum`.
        public var album: Album?
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
        /// A folder chosen from the empty state ("Choose Folder…") is added to the default
        /// library folders for later runs too (false when the caller named the folders).
        public var remembersChosenFolders = false
        public init() {}
    }

    final class Session {
        var outcome = Outcome.cancelled
        /// The picker's view while its window is open (the widget owns it).
        weak var view: PickerView?
        /// The window now (a second activation presents it).
        var window: UnsafeMutablePointer<GtkWidget>?
        /// Replaced when the person adds a folder from the empty state.
        var library: PhotoLibrary
        /// Problems met while the window is rebuilt, said in the new one.
        var pendingProblems: [String] = []
        /// The first window's controller, its scan started before GTK starts up.
        var earlyController: PickerController?
        /// The app from the menu's picks of last time not picked yet (their folder missing).
        var savedPicks: SavedPicks?
        /// The index was empty when the window started: its grid will wait on decodes.
        var isFirstRun = false
        let loader: ThumbnailLoader
        var options: Options
        /// When `run` began (monotonic seconds): a `timeout` counts from here, whatever the
        /// start-up waited for.
        let began = monotonicSeconds()
        init(library: PhotoLibrary, loader: ThumbnailLoader, options: Options) {
            self.library = library
            self.loader = loader
            self.options = options
        }
    }

    /// The smallest window: a phone's width, room for the header, two rows and the strip.
    static let minimumWidth = 360, minimumHeight = 360

    /// Shows the window until the person confirms or cancels, or the timeout.
    public static func run(library: PhotoLibrary, options: Options = Options()) -> Outcome {
        let loader = ThumbnailLoader()
        // The answer must not wait for a decode nobody will see: the process ends right after.
        defer { loader.shutdown(waitsForRunningWork: false) }
        let session = Session(library: library, loader: loader, options: options)
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
            let controller = makeController(session, state: PickerState.load())
            session.isFirstRun = session.library.isEmpty
            controller.startScan()
            session.earlyController = controller
        }
        // (GtkApplication would end the process when it cannot open one.)
        guard gtk_init_check() != 0 else {
            session.earlyController?.close()
            return .noDisplay
        }
        StartupTrace.mark("display opened")
        let application = adw_application_new(applicationID, flags)!
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
        _ = g_application_run(application.cast(), 0, nil)
        session.earlyController?.close()
        session.earlyController = nil
        if !startedHere { return .handedToRunningApp }
        session.view?.controller.close()
        // The view's callbacks hold the session: let go of the view so that nothing of the
        // window (its library, model, widgets) outlives `run`.
        session.view = nil
        session.window = nil
        return session.outcome
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
        let window = adw_application_window_new(application.cast(GtkApplication.self))!
        session.window = window
        Signal.connect(window.raw, "destroy") { [weak session] () -> Void in
            if session?.window == window { session?.window = nil }
        }
        gtk_window_set_title(window.cast(), session.options.title)
        let state = PickerState.load()
        let startWidth = session.options.width ?? state.windowWidth ?? 960, startHeight = session.options.height ?? state.windowHeight ?? 720
        gtk_window_set_default_size(window.cast(), Int32(max(startWidth, minimumWidth)), Int32(max(startHeight, minimumHeight)))
        let maximized = state.windowMaximized && session.options.width == nil && session.options.height == nil
        if maximized { gtk_window_maximize(window.cast()) }
        // Narrow enough for a phone-sized window, wide enough for the header's three controls.
        gtk_widget_set_size_request(window, Int32(minimumWidth), Int32(minimumHeight))
        let scanning = session.earlyController != nil
        // The window is the picker widget's first user, as another program's would be
        // (README: Embedding): the widget's header widgets go in the window's header bar, and its
        // confirmed and cancelled signals end the window.
        let (picker, behaviour) = PickerBehaviour.hosting(session.earlyController ?? makeController(session, state: state), loader: session.loader)
        let view = behaviour.view!
        session.earlyController = nil
        view.controller.fetchesRemotePicks = session.options.fetchesRemotePicks
        view.controller.fetchesRemotePicks = session.options.fetchesRemotePicks
        let camera = view.controller.camera
        view.captureFolder = session.options.captureFolder
        view.confirmLabel = session.options.confirmLabel
        gtk_button_set_label(view.cancelButton.cast(), session.options.cancelLabel)
        view.filter = AssetFilter(mimeTypes: session.options.mimeTypes, namePatterns: session.options.fileFilters.first?.patterns ?? [])
        view.filterName = session.options.fileFilters.first?.name
        if let size = state.cellSize { view.setCellSize(size) }
        session.view = view
        // A picker's header: Cancel, the album, the primary action. No close button: Cancel is it.
        let header = adw_header_bar_new()!
        view.title = session.options.title
        let headerWidgets = behaviour.headerWidgets
        adw_header_bar_set_title_widget(header.opaque, headerWidgets.title)
        // The app from the menu is a window like any other: the desktop's title buttons (its
        // decoration layout), Ctrl+W and Ctrl+Q; a script's picker is a dialog, closed by Cancel.
        let isApp = session.options.isDesktopApp
        adw_header_bar_set_show_start_title_buttons(header.opaque, isApp ? 1 : 0)
        adw_header_bar_set_show_end_title_buttons(header.opaque, isApp ? 1 : 0)
        if isApp { gtk_widget_set_visible(view.cancelButton, 0) }
        // (Cancel, and the preview's back button and the indexing progress; the preview's pick
        // button and the confirm button, which the preview shows instead of the others.)
        adw_header_bar_pack_start(header.opaque, headerWidgets.start)
        adw_header_bar_pack_end(header.opaque, headerWidgets.end)
        // Shown for a single filter too, as zenity shows it: the person sees why files are hidden.
        if !session.options.fileFilters.isEmpty {
            adw_header_bar_pack_end(header.opaque, fileFilterChooser(session.options, view: view))
        }
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(content.cast(), header)
        gtk_box_append(content.cast(), picker)
        adw_application_window_set_content(window.cast(), content)

        let remember = { [weak view] in
            guard let view else { return }
            var state = PickerState.load()
            // Only the app from the menu remembers its album: a script's Recents must not
            // replace the album the person left the app on.
            if session.options.restoresAlbum { state.album = view.albumKey }
            state.cellSize = view.cellSize
            if let chosen = view.controller.camera?.chosenCamera { state.camera = chosen.path.displayString }
            // The app from the menu keeps its picks for the next launch: nothing waits for them,
            // and closing must not throw them away.
            if session.options.isDesktopApp {
                let picked = view.controller.assets(view.selection.picked).compactMap { fileURI($0.path) }
                // (With those of last time that still wait for their folder: a quit never loses them.)
                state.picked = session.savedPicks?.kept(with: picked) ?? picked
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
        let close = {
            remember()
            if isApp && FileClipboard.keepsServing(window: window, application: application) { return }
            gtk_window_destroy(window.cast())
        }
        // Closing from the title bar cancels, and the window remembers its state all the same.
        Signal.connect(window.raw, "close-request", stop: {
            remember()
            return isApp && FileClipboard.keepsServing(window: window, application: application)
        })
        if !isApp {
            // (The app from the menu copies instead, and stays: DesktopActions.)
            Signal.connect(picker.raw, "confirmed", object: { [weak session, weak view] _ in
                // (The picker read these rows a moment ago to confirm: it said so if it could not.)
                guard let session, let view, let picked = try? view.controller.readAssets(view.selection.picked) else { return }
                var copies: [Int64: FilePath] = [:]
                for asset in picked where view.controller.isRemote(asset.path) { copies[asset.id] = view.controller.fetches.copy(of: asset.id) }
                session.outcome = .picked(picked, copies: copies)
                close()
            })
        }
        if !session.options.isDesktopApp {
            view.onTypedPath = { [weak session] path in
                session?.outcome = .typed(path)
                close()
            }
        }
        if let seconds = session.options.timeout {
            // Owned by the window: it goes with it. (Counted from the start, as zenity does.)
            let timer = MainLoopSource()
            let left = max(0, Double(min(seconds, 40 * 86_400)) - (monotonicSeconds() - session.began))
            timer.schedule(after: guint(left * 1000), priority: G_PRIORITY_DEFAULT) { [weak session] in
                session?.outcome = .timedOut
                close()
            }
            attach(timer, to: window.raw, key: "photopick-timeout")
        }
        Signal.connect(picker.raw, "cancelled") { close() }
        view.escapeCancels = !session.options.isDesktopApp
        view.enterConfirms = session.options.enterConfirms
        PickerActions.install(window: window, application: application.cast(GtkApplication.self), view: view,
                              desktop: session.options.isDesktopApp)
        if session.options.isDesktopApp {
            let desktop = DesktopActions(window: window, picker: picker, view: view, version: session.options.version)
            adw_header_bar_pack_end(header.opaque, desktop.menuButton)
        }
        view.onChooseFolder = { [weak view, weak session] folder in
            guard let view, let session else { return }
            reopen(session, application: application, window: window, adding: folder, in: view)
        }
        let remembered = session.options.restoresAlbum ? state.album.flatMap(view.album(forKey:)) : nil
        var width: Int32 = 0, height: Int32 = 0
        gtk_window_get_default_size(window.cast(), &width, &height)
        // (A maximized window's size is not known yet: it shows all its cells from the start.
        // GTK says it is maximized only once the window manager has done it.)
        if !maximized { view.holdCellsBeyondFirstScreen(width: Int(width), height: Int(height)) }
        do {
            try view.showAlbums(selecting: session.options.album ?? remembered ?? .smart(.recents))
        } catch {
            DeveloperLog.say("cannot read the albums: \(error)")
            view.report(i18n("The albums cannot be read"), printing: false)
        }
        // (The command line has printed them already.)
        for notice in session.library.notices { view.report(notice.message, printing: false) }
        for problem in ConfigurationFile.takeProblems() { view.report(problem) }
        for problem in session.pendingProblems { view.report(problem) }
        session.pendingProblems = []
        if session.options.isDesktopApp { restorePicks(state.picked, in: view, session: session) }
        view.preloadFirstScreen(width: Int(width), height: Int(height))
        StartupTrace.mark("first screen's thumbnails loaded")
        if scanning { view.updateEmptyState() } else { view.startScan() }
        view.controller.startWatching()
        if session.options.modal { gtk_window_set_modal(window.cast(), 1) }
        if let parent = session.options.parentXID {
            // Before the window is mapped, so the window manager places it over its parent.
            gtk_widget_realize(window)
            if photopick_window_set_transient_for_xid(window, UInt(parent)) == 0 {
                view.report(i18n("--attach works on X11 only: the window is not attached"))
            }
        }
        if StartupTrace.isOn { traceFirstFrames(of: window) }
        // A first run's grid waits on its first screen's decodes: the decode workers start once
        // the window is up (before, they took the cores from GTK's start-up and the mapping came
        // 0.1 s later), while the scan dates the files, not when the first decode is asked for.
        if session.isFirstRun {
            let loader = session.loader
            Signal.connect(window.raw, "map") { () -> Void in loader.thumbnailer.workers?.prestart() }
        }
        gtk_window_present(window.cast())
        StartupTrace.mark("presented")
        // After the window is on its way: opening devices never delays its first frame.
        camera?.start()
        if let path = session.options.focusedPath, let asset = try? session.library.asset(path: path) {
            view.focusAsset(asset.id)
        } else {
            view.focusFirstPhoto()
        }
    }

    /// The controller of a window about to be built, with its camera.
    private static func makeController(_ session: Session, state: PickerState) -> PickerController {
        // The camera is looked for in the background; its cell has its place from the start when
        // there are video device nodes at all (no shift when it is found), none otherwise.
        let camera = session.options.showsCamera
            ? CameraStore(requested: session.options.cameraDevice ?? state.camera, alwaysShown: state.cameraAlwaysShown,
                          post: { MainLoopDispatcher.shared.post($0) }) : nil
        return PickerView.controller(library: session.library, maximum: session.options.maximum, camera: camera,
                                     showsCameraAtStart: camera != nil && (state.cameraAlwaysShown || !CameraDevices.nodes().isEmpty))
    }
}
