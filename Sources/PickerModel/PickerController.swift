import GObjectSupport
import Camera
import PhotoLibrary

/// What the picker knows, without a widget in sight: the library, the albums and the open one,
/// the grid's model of it, the selection, the scan that keeps the index current, the changes
/// that arrive while the window is open, the type filter and the problems to tell the person.
/// It is the only picker code that touches `PhotoLibrary` or starts work on another thread; the
/// widgets (PickerUI) bind to it and tests drive it without a display.
///
/// The GTK thread's (the main actor's). Work done elsewhere comes back through `post`, which
/// runs a main-actor closure on that thread (the GLib main loop; a test's own queue in tests).
@MainActor
public final class PickerController {
    public let library: PhotoLibrary
    public let selection: SelectionStore
    /// The open album as the grid's GListModel.
    public let model: AssetListModel

    /// The albums the switcher lists: smart albums and folders that hold something, Recents and
    /// the open album always.
    public private(set) var albums: [AlbumSummary] = []
    public private(set) var currentAlbum: Album?
    /// The assets the picker offers (MIME types, name patterns); `.all` for everything.
    public var filter = AssetFilter.all {
        didSet {
            guard filter != oldValue, let album = currentAlbum else { return }
            currentAlbum = nil
            open(album)
            if currentAlbum == nil { currentAlbum = album }  // it could not be read again: keep its name
        }
    }
    public private(set) var isScanning = false

    // What the widgets listen to; each runs on the GTK thread.
    /// The album list or the open album changed (for the switcher).
    public var onAlbumsChanged: (() -> Void)?
    /// The model is about to hold another album (the grid may make fewer cells for it).
    public var onAlbumOpening: (() -> Void)?
    /// The model now holds another album (from its start).
    public var onAlbumOpened: (() -> Void)?
    /// A first scan has dated every file: the newest of Recents, newest first (their thumbnails
    /// can be made before the album opens).
    public var onNewestKnown: (([FilePath]) -> Void)?
    /// The open album's contents changed, or a change turned out to touch nothing shown.
    public var onContentChanged: (() -> Void)?
    /// Progress of a first scan: (progress, the number of files expected).
    public var onScanProgress: ((ScanProgress, Int) -> Void)?
    /// The scan is over (its last changes may still be on their way into the model).
    public var onScanFinished: (() -> Void)?
    /// Photos arrived above what the person looks at: how many since they last were at the top.
    public var onNewerAbove: ((Int) -> Void)?
    /// A change moved the asset at the top of the view from one grid position to another (photos
    /// arrived or left above it): the view scrolls by the difference, so the asset stays in place.
    public var onAnchorMoved: ((_ from: Int, _ to: Int) -> Void)?
    /// The asset at the top of the view, asked just before a change is applied; nil while the view
    /// is at the very top, where new photos simply appear first.
    public var anchorAsset: (() -> Int64?)?
    /// Photos that arrived above the view since it was last at the top.
    public var newerAbove: Int { heldArrivals.count }
    /// Those photos: in the index, kept out of the model until the person goes to the top. Put
    /// in above them, they would reflow the grid under their eyes (200 arrivals moved every photo
    /// one row down and four columns on); a messenger's gallery holds them behind a banner too.
    private var heldArrivals: Set<Int64> = []

    /// Something the person could act on, in words: said once.
    public var onProblem: ((String) -> Void)?

    /// Hands a closure from a worker to the GTK thread.
    public typealias Post = @Sendable (@escaping @MainActor @Sendable () -> Void) -> Void
    private let post: Post
    private var isClosed = false
    private var pendingChange = LibraryChange()
    private var computingChange = false
    private var watcher: LibraryWatcher?
    /// Whether a library folder was missing when last looked for, and a look is under way.
    private var rootsWereMissing = false
    private var missingRootsLookedFor = false
    /// The controller's own threads: the scan, change positions and reading the rest of an album
    /// (so a long scan never holds up a change). Shut down, waiting for them, at `close()`.
    private let workers = WorkerPool(name: "picker", threads: 2)

    /// The live camera, when the picker shows one (its cell is the grid's first).
    public let camera: CameraStore?

    /// - Parameter camera: shown as the first cell while it has a camera; `showsCameraAtStart`
    ///   gives the cell its place before the camera is found (the grid then does not move when it
    ///   is: the caller saw device nodes), and it goes if none turns out to capture video.
    public init(library: PhotoLibrary, maximum: Int? = nil, camera: CameraStore? = nil, showsCameraAtStart: Bool = false,
                post: @escaping Post) {
        self.library = library
        self.post = post
        self.camera = camera
        selection = SelectionStore(maximum: maximum)
        model = AssetListModel(showsCamera: camera != nil && showsCameraAtStart)
        camera?.onAvailabilityChanged = { [weak self] available in self?.model.setShowsCamera(available) }
    }

    /// The widgets are gone: work still under way elsewhere is dropped when it comes back.
    public func close() {
        isClosed = true
        camera?.close()
        watcher?.stop()
        watcher = nil
        // A scan stops at its next file, keeping what it read (`isStopping`); work that is under
        // way returns before this does, and what it posted finds the controller closed.
        workers.shutdown()
        isScanning = false
        onAlbumsChanged = nil
        onAlbumOpening = nil
        onNewestKnown = nil
        onAlbumOpened = nil
        onContentChanged = nil
        onScanProgress = nil
        onScanFinished = nil
        onProblem = nil
    }

    /// Tells the index's notices (rebuilt, kept in memory …) to the person.
    public func reportNotices() {
        for notice in library.notices { onProblem?(notice.message) }
    }

    // MARK: Rows

    /// The folders the library is made of.
    public var roots: [FilePath] { library.roots }

    /// An asset's row: from the library's cache, or one query.
    public func asset(_ id: Int64) -> Asset? { try? library.asset(id: id) }

    /// Rows in the order of `ids` (those still in the index), in one query for the missing.
    public func assets(_ ids: [Int64]) -> [Asset] { (try? library.assets(ids: ids)) ?? [] }

    /// Reads the rows of the open album's `positions` in one query, so that the cells bound
    /// next find them in the cache instead of querying one by one on the GTK thread.
    public func readRows(at positions: Range<Int>) {
        _ = try? library.assets(ids: positions.compactMap { model.assetID(at: $0) })
    }

    /// The path of the asset at a position of the open album.
    public func path(at position: Int) -> FilePath? {
        model.assetID(at: position).flatMap(asset)?.path
    }

    /// The newest assets of `album`, newest first, for its cover in the switcher: the first that
    /// makes a thumbnail is the cover (the newest may be damaged: Animated's cover was blank).
    public func coverPaths(of album: Album, count: Int = 4) -> [FilePath] {
        guard let result = try? library.fetchAssets(in: album) else { return [] }
        return (0..<min(count, result.count)).compactMap { asset(result.id(at: $0))?.path }
    }

    // MARK: Albums

    /// Reads the album list again (counts now) and opens `album` (else the open one, else
    /// Recents; an album that is gone falls back to Recents).
    public func reloadAlbums(selecting album: Album? = nil) throws {
        let wanted = album ?? currentAlbum ?? .smart(.recents)
        albums = try library.albums().filter { $0.count > 0 || $0.album == .smart(.recents) || $0.album == wanted }
        let shown = albums.first { $0.album == wanted }?.album ?? albums.first?.album ?? wanted
        open(shown)
        onAlbumsChanged?()
    }

    /// Opens `album` in the model. Picks stay: they belong to the library, not to an album.
    public func open(_ album: Album) {
        // Refilling the list re-selects the open album: keep its fetch result.
        guard album != currentAlbum || model.fetchResult == nil else { return }
        let result: FetchResult
        do {
            result = try library.fetchAssets(in: album, filter: filter)
        } catch {
            onProblem?(i18n("Cannot open the album: {reason}", ["reason": "\(error)"]))
            // The switcher goes back to the album still shown.
            onAlbumsChanged?()
            return
        }
        currentAlbum = album
        // A new fetch shows everything: nothing is held above it.
        heldArrivals = []
        onNewerAbove?(0)
        // The rows of the first screens in one query, before their cells bind one by one.
        _ = try? library.assets(ids: result.ids(in: 0..<300))
        onAlbumOpening?()
        model.replace(with: result)
        StartupTrace.mark("album in the grid")
        result.loadRemaining(on: workers)
        onAlbumOpened?()
        onAlbumsChanged?()
    }

    /// The open album as remembered between runs: a smart album's name or a folder's path.
    public var albumKey: String? {
        switch currentAlbum {
        case .smart(let smart)?: return smart.name
        case .folder?: return albums.first { $0.album == currentAlbum }?.folderPath?.displayString
        case nil: return nil
        }
    }

    public func album(forKey key: String) -> Album? {
        if let smart = SmartAlbum(name: key) { return .smart(smart) }
        return (try? library.albums())?.first { $0.folderPath?.displayString == key }?.album
    }

    // MARK: Changes

    /// Applies a library change to the open album (exact positions) and drops deleted picks.
    /// The positions are worked out on another thread (it reads the album's ids: a million for a
    /// big library), one change at a time; changes that arrive meanwhile are merged and follow.
    public func apply(_ change: LibraryChange) {
        guard !isClosed else { return }
        // A pick that leaves without a word looks like a slip of the hand: say so.
        let gone = selection.picked.filter(change.removed.contains).count
        selection.remove(change.removed)
        if gone > 0 {
            onProblem?(ni18n("{count} picked photo was deleted or moved, so it is no longer picked",
                             "{count} picked photos were deleted or moved, so they are no longer picked", gone))
        }
        if change.foldersChanged {
            do { try reloadAlbums() } catch { onProblem?(i18n("Cannot read the albums: {reason}", ["reason": "\(error)"])) }
        }
        pendingChange.merge(change)
        computeNextChange()
    }

    /// `post` for workers: runs a closure with the controller on the GTK thread if it is still
    /// there then. Workers hold it weakly, so that it is let go on the GTK thread, with its model.
    private var postToController: @Sendable (@escaping @MainActor (PickerController) -> Void) -> Void {
        { [weak self, post] work in post { if let self { work(self) } } }
    }

    private func computeNextChange() {
        guard !computingChange, !pendingChange.isEmpty, let base = model.fetchResult else {
            onContentChanged?()
            return
        }
        let change = pendingChange
        pendingChange = LibraryChange()
        computingChange = true
        let library = self.library, post = postToController, held = heldArrivals
        workers.submit {
            let details = Result { try library.changeDetails(for: base, after: change, holdingBack: held) }
            post { controller in
                controller.computingChange = false
                guard !controller.isClosed else { return }
                // An album switched meanwhile is already current: its fetch saw this change.
                switch details {
                case .success(let details?) where controller.model.fetchResult === base:
                    if controller.holdArrivalsAboveView(details, change: change) {
                        // Worked out again without them (the rest of the change still applies).
                        var again = change
                        again.merge(controller.pendingChange)
                        controller.pendingChange = again
                        break
                    }
                    controller.applyKeepingAnchor(details)
                    controller.pickPendingCapture()
                    controller.onContentChanged?()
                case .success:
                    break
                case .failure(let error):
                    controller.onProblem?(i18n("Cannot show the latest changes: {reason}", ["reason": "\(error)"]))
                }
                controller.computeNextChange()
            }
        }
    }

    // MARK: Captures

    /// A photo the camera just saved: its folder is indexed now (not left to the watcher, which
    /// may not watch a folder made a moment ago), and once the photo is in the grid it is picked,
    /// unless the maximum is reached (then `onProblem` says so). `onCaptureShown` gets its id.
    public func adoptCapture(_ path: FilePath) {
        guard !isClosed else { return }
        guard library.contains(path) else {
            onProblem?(i18n("The photo was saved as {path}, outside the folders shown here.", ["path": path.displayString]))
            return
        }
        pendingCapture = path
        let library = self.library, post = postToController
        workers.submit {
            let change = Result { try library.rescan(folders: [path.parent]) }
            post { controller in
                switch change {
                case .success(let change):
                    controller.apply(change)
                    controller.pickPendingCapture()
                case .failure(let error):
                    controller.onProblem?(i18n("Cannot add the new photo: {reason}", ["reason": "\(error)"]))
                }
            }
        }
    }

    /// Something worth a passing word (not a problem): a capture saved but not picked.
    public var onNotice: ((String) -> Void)?

    /// A new capture's id once the grid shows it (the view scrolls to it and focuses it).
    public var onCaptureShown: ((Int64) -> Void)?
    private var pendingCapture: FilePath?

    /// Picks the capture waiting to be picked, if the open album shows it by now.
    private func pickPendingCapture() {
        guard let path = pendingCapture, let asset = try? library.asset(path: path),
              model.position(of: asset.id) != nil else { return }
        pendingCapture = nil
        if selection.number(of: asset.id) == nil {
            if selection.isFull {
                onNotice?(i18n("Photo saved, not picked: you can pick up to {maximum}", ["maximum": Localization.number(selection.maximum ?? 0)]))
            } else {
                selection.toggle(asset.id)
            }
        }
        onCaptureShown?(asset.id)
    }

    // MARK: Finding by name

    /// Finds the first photo of the open album named like `text` (PhotoLibrary.position(ofName:)),
    /// on a worker; `found` gets its asset id, or nil, unless the album changed meanwhile (then
    /// nothing is said: the answer was for another list).
    public func findName(_ text: String, found: @escaping @MainActor (Int64?) -> Void) {
        guard !isClosed, let base = model.fetchResult else { return }
        let library = self.library, post = postToController
        workers.submit {
            let position = (try? library.position(ofName: text, in: base)) ?? nil
            let id = position.map { base.id(at: $0) }
            post { controller in
                guard controller.model.fetchResult === base else { return }
                found(id)
            }
        }
    }

    /// The person is at the top again (or chose to go there): the photos held above come in,
    /// first in the grid, where they are seen.
    public func sawNewest() {
        guard !heldArrivals.isEmpty else { return }
        var release = LibraryChange()
        release.inserted = heldArrivals
        heldArrivals = []
        onNewerAbove?(0)
        apply(release)
    }

    /// Holds back the photos `details` would put in above the asset at the top of the view, when
    /// the person has scrolled down; true if there were any (the change is then worked out again).
    /// A capture waiting to be picked is never held: the person just took it.
    private func holdArrivalsAboveView(_ details: FetchResultChangeDetails, change: LibraryChange) -> Bool {
        guard pendingCapture == nil, !details.insertedIndexes.isEmpty, let anchor = anchorAsset?(),
              let to = details.after.index(of: anchor) else { return false }
        let arrivals = details.insertedIndexes.prefix { $0 < to }.map { details.after.id(at: $0) }
            .filter { change.inserted.contains($0) }
        guard !arrivals.isEmpty else { return false }
        heldArrivals.formUnion(arrivals)
        onNewerAbove?(heldArrivals.count)
        return true
    }

    /// Applies change details to the model; when the person has scrolled away from the top, the
    /// asset they look at keeps its place on screen and the photos that arrived above it are counted.
    private func applyKeepingAnchor(_ details: FetchResultChangeDetails) {
        let anchor = anchorAsset?()
        let from = anchor.flatMap { model.position(of: $0) }
        model.apply(details)
        guard let anchor, let from, let to = model.position(of: anchor) else { return }
        if to != from { onAnchorMoved?(from, to) }
    }

    // MARK: Scanning and watching

    /// Keeps the index current while the picker is open: the watcher's changes (on its own
    /// thread) are applied here, in place. A watcher that cannot start is said in words.
    /// `maximumWatches` stands in for the kernel's limit in tests.
    public func startWatching(maximumWatches: Int? = nil) {
        guard watcher == nil, !isClosed else { return }
        let post = postToController
        let watcher = LibraryWatcher(library: library, maximumWatches: maximumWatches, onChange: { change in post { $0.apply(change) } },
                                     onNotice: { notice in
            // The watch limit: new photos in some folders show up later than in others. Said once.
            post { controller in
                if !controller.isClosed { controller.onProblem?(i18n("Some folders are checked for new photos only every half minute: {reason}", ["reason": "\(notice)"])) }
            }
        })
        do {
            try watcher.start()
            self.watcher = watcher
        } catch {
            onProblem?(i18n("New photos will show up only after Photopick restarts: {reason}", ["reason": "\(error)"]))
        }
        lookForMissingRoots()
    }

    /// A library folder that is missing (deleted, on a disk not plugged in) cannot be watched:
    /// it is looked for every two seconds, off the GTK thread (a stat of a network path may
    /// hang), and once it is back it is watched and read again. It was "No … Folder" for good.
    private func lookForMissingRoots() {
        guard !isClosed, !missingRootsLookedFor else { return }
        let library = self.library, post = postToController
        missingRootsLookedFor = true
        workers.submit(after: 2) {
            let missing = library.roots.filter { !$0.isDirectory }
            let allThere = missing.isEmpty
            post { controller in
                controller.missingRootsLookedFor = false
                guard !controller.isClosed else { return }
                if controller.rootsWereMissing && allThere {
                    // Back: watched afresh (its old watches went with it) and read again.
                    controller.watcher?.stop()
                    controller.watcher = nil
                    controller.rootsWereMissing = false
                    controller.startWatching()
                    controller.startScan(fullCheckDelay: 0)
                    return
                }
                controller.rootsWereMissing = controller.rootsWereMissing || !allThere
                controller.lookForMissingRoots()
            }
        }
    }

    /// Brings the index up to date in the background; later runs pick up what changed since.
    /// Nothing waits. On a first run (the album is empty) the grid stays empty until every file is
    /// dated and the newest are read in full: then the album opens once, in its final order, and
    /// the rest of the scan only fills in details in place. Showing photos as they were found
    /// would push the screen around for as long as the scan ran (newer photos keep arriving above).
    ///
    /// A later run looks first at the folders whose time moved (a stat per folder), so the cores
    /// go to the first frame; every file is checked `fullCheckDelay` seconds later, which finds
    /// a photo rewritten in place while Photopick was closed.
    public func startScan(fullCheckDelay: Double = 10) {
        guard !isClosed else { return }
        let library = self.library
        // (Started before an album is open, as the window does: an empty index is a first run.)
        let albumEmpty = currentAlbum != nil && model.count - (model.showsCamera ? 1 : 0) == 0
        let firstRun = library.isEmpty || albumEmpty
        if firstRun || fullCheckDelay <= 0 {
            scan(.everyFile, firstRun: firstRun)
            return
        }
        scan(.changedFolders, firstRun: false)
        checkEveryFile(after: fullCheckDelay)
    }

    private func checkEveryFile(after delay: Double) {
        let post = postToController
        workers.submit(after: delay) {
            post { controller in
                guard !controller.isClosed else { return }
                // Another scan still running: a little later.
                if controller.isScanning { controller.checkEveryFile(after: 2) } else { controller.scan(.everyFile, firstRun: false) }
            }
        }
    }

    private func scan(_ scope: ScanScope, firstRun: Bool) {
        guard !isScanning else { return }
        StartupTrace.mark(firstRun ? "first scan started" : "scan started")
        isScanning = true
        let library = self.library
        let post = postToController, workers = self.workers
        // Counting the files reads every folder: never on the GTK thread, and beside the scan
        // rather than before it (a first screen waits for the scan).
        let expected = Counted()
        if firstRun { workers.submit { expected.value = library.countFiles() } }
        workers.submit {
            var lastShown = 0.0
            // Commits are merged and handed over at most twice a second, so a first scan does
            // not keep the GTK thread busy with hundreds of small changes.
            var pending = LibraryChange()
            var lastPosted = 0.0
            var holding = firstRun
            func handOver(now: Double) {
                guard !holding, !pending.isEmpty else { return }
                let change = pending
                pending = LibraryChange()
                lastPosted = now
                post { $0.apply(change) }
            }
            var failure: String?
            do {
                try library.scan(scope, progress: { progress in
                    if holding && progress.datesKnown {
                        StartupTrace.mark("every file dated")
                        // What was committed so far is in the album as it opens now.
                        holding = false
                        pending = LibraryChange()
                        post { $0.showScannedLibrary() }
                    }
                    if progress.elapsedSeconds - lastPosted >= 0.5 { handOver(now: progress.elapsedSeconds) }
                    guard firstRun, progress.elapsedSeconds - lastShown > 0.25 || progress.finished || progress.datesKnown else { return }
                    lastShown = progress.elapsedSeconds
                    let total = expected.value
                    post { controller in
                        if !controller.isClosed { controller.onScanProgress?(progress, total) }
                    }
                }, committed: { change in
                    pending.merge(change)
                }, isCancelled: { workers.isStopping }, newestInRecents: { newest in
                    post { controller in
                        guard !controller.isClosed, controller.currentAlbum ?? .smart(.recents) == .smart(.recents) else { return }
                        controller.onNewestKnown?(newest)
                    }
                })
            } catch ScanError.cancelled {
                return  // the picker closed: nobody to tell
            } catch {
                failure = i18n("Indexing stopped: {reason}", ["reason": "\(error)"])
            }
            if holding {
                // The scan ended before its dates were known (it failed): show what there is.
                holding = false
                post { $0.showScannedLibrary() }
            }
            handOver(now: 0)
            post { [failure] controller in
                controller.isScanning = false
                guard !controller.isClosed else { return }
                if let failure { controller.onProblem?(failure) }
                controller.onScanFinished?()
            }
        }
    }

    /// A first scan knows every date: the album list (with counts) is read again and the open
    /// album opens afresh, in its final order.
    private func showScannedLibrary() {
        guard !isClosed else { return }
        StartupTrace.mark("showing the scanned library")
        let album = currentAlbum ?? .smart(.recents)
        currentAlbum = nil
        do {
            try reloadAlbums(selecting: album)
        } catch {
            currentAlbum = album
            onProblem?(i18n("Cannot read the albums: {reason}", ["reason": "\(error)"]))
        }
    }
}

/// A number another thread works out (0 until it is known).
private final class Counted: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0
    var value: Int {
        get { lock.withLock { count } }
        set { lock.withLock { count = newValue } }
    }
}
