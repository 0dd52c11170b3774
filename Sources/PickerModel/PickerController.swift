// SPDX-License-Identifier: LGPL-2.1-or-later
import Dispatch
import GObjectSupport
import Camera
import PhotoLibrary

/// A row of the index, or why there is none.
public enum RowLookup {
    case found(Asset)
    /// No longer in the index (the file was deleted; the grid drops it with the change).
    case gone
    /// The index could not be read: SQLite's words.
    case unreadable(String)
}

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
    /// The library's scan and watcher, shared with the process's other pickers of it.
    public let service: LibraryService
    public let selection: SelectionStore
    /// The local copies of the picks on another machine, made as they are picked.
    public let fetches: FetchStore
    /// Whether picks on another machine are copied here (not when the answer is their URIs:
    /// `photopick --uri`).
    public var fetchesRemotePicks = true
    /// The open album as the grid's GListModel.
    public let model: AssetListModel

    /// The albums the switcher lists: smart albums and folders that hold something, Recents and
    /// the open album always.
    public private(set) var albums: [AlbumSummary] = []
    public internal(set) var currentAlbum: Album?
    /// The assets the picker offers (MIME types, name patterns); `.all` for everything.
    public var filter = AssetFilter.all {
        didSet {
            guard filter != oldValue, let album = currentAlbum else { return }
            currentAlbum = nil
            open(album)
            if currentAlbum == nil { currentAlbum = album }  // it could not be read again: keep its name
        }
    }
    /// The files whose pictures failed for a reason of their own (PickerController+Pictures).
    var fileProblems: [Int64: FileProblem] = [:]
    /// Whether the library's scan runs (for this picker: not once it closed).
    public var isScanning: Bool { !isClosed && service.isScanning }

    /// The asset at the top of the view, asked just before a change is applied; nil while the view
    /// is at the very top, where new photos simply appear first. (A question, not an event.)
    public var anchorAsset: (() -> Int64?)?
    /// Photos that arrived above the view since it was last at the top.
    public var newerAbove: Int { heldArrivals.count }

    /// The newest `count` photos held above the view, in the album's order: their thumbnails
    /// are made while the banner waits, so they come in drawn, not grey (issue 40, point 18).
    /// Read on a worker: a copy of 5,000 photos into Pictures holds them all, and each change
    /// asks again.
    public func newestHeldArrivals(_ count: Int, then done: @escaping @MainActor @Sendable ([Asset]) -> Void) {
        guard !heldArrivals.isEmpty, count > 0 else { return done([]) }
        let ids = Array(heldArrivals), library = library, post = post
        workers.submit {
            let newest = ((try? library.assets(ids: ids)) ?? [])
                .sorted { ($0.captureDate.millisecondsSinceEpoch, $0.id) > ($1.captureDate.millisecondsSinceEpoch, $1.id) }
                .prefix(count).map { $0 }
            post { done(newest) }
        }
    }
    /// Those photos: in the index, kept out of the model until the person goes to the top. Put
    /// in above them, they would reflow the grid under their eyes (200 arrivals moved every photo
    /// one row down and four columns on); a messenger's gallery holds them behind a banner too.
    private var heldArrivals: Set<Int64> = []
    /// The months of the album `result` (`months(then:)`).
    private var monthsKnown: (result: FetchResult, runs: [PhotoLibrary.MonthRun])?
    /// Who waits for the months, and whether a read of them is under way.
    private var monthsWanted: [@MainActor ([PhotoLibrary.MonthRun]) -> Void] = []
    private var readingMonths = false
    /// Picks being written for Recently Picked.
    private let recordingPicks = DispatchGroup()

    /// Hands a closure from a worker to the GTK thread.
    public typealias Post = @Sendable (@escaping @MainActor @Sendable () -> Void) -> Void
    private let post: Post
    /// Who hears the events (PickerController+Events), in the order they began to.
    let subscribers = Subscribers<PickerEvent>()
    var isClosed = false
    private var pendingChange = LibraryChange()
    private var computingChange = false
    private var serviceSubscription: Subscription?
    private var selectionSubscription: Subscription?
    /// The offline folders said to the person (once each).
    var toldOffline: Set<FilePath> = []
    /// The picks and unpicks whose copies wait for a press to end (holdFetches).
    var heldFetches: Set<Int64>?
    /// A first run's album waits for the scan to date every file (startScan).
    var waitsForDates = false
    /// How a first run's scanned library, once read, is shown: a picker on screen shows it in a
    /// turn of its own after its next frame (the view sets this). Nil: at once, in the same turn.
    public var showsAfterTheNextFrame: ((@escaping @MainActor () -> Void) -> Void)?
    /// The changes that arrive while the scanned library waits to be shown, applied after it.
    var changesWhileShowing: [LibraryChange]?
    /// A first run's library is still to be shown: its files are being dated, or what the scan
    /// found is read and waits for a frame. (An empty album then is one still looked for.)
    public var scannedLibraryIsComing: Bool { waitsForDates || changesWhileShowing != nil }
    /// The controller's own threads: change positions, finding by name and reading the rest of
    /// an album (the scan has the service's). Told to stop at `close()`, not waited for.
    let workers = WorkerPool(name: "picker", threads: 2, onDemand: true)

    /// The live camera, when the picker shows one (its cell is the grid's first).
    public let camera: CameraStore?

    /// - Parameter camera: shown as the first cell while it has a camera; `showsCameraAtStart`
    ///   gives the cell its place before the camera is found (the grid then does not move when it
    ///   is: the caller saw device nodes), and it goes if none turns out to capture video.
    public convenience init(library: PhotoLibrary, maximum: Int? = nil, camera: CameraStore? = nil, showsCameraAtStart: Bool = false,
                            post: @escaping Post) {
        self.init(service: LibraryService(library: library, post: post), maximum: maximum, camera: camera,
                  showsCameraAtStart: showsCameraAtStart, post: post)
    }

    /// A picker of a library another picker may show too (LibraryService.shared).
    public init(service: LibraryService, maximum: Int? = nil, camera: CameraStore? = nil, showsCameraAtStart: Bool = false,
                fetchedCopies: FetchedCopies = FetchedCopies(), post: @escaping Post) {
        self.service = service
        library = service.library
        self.post = post
        self.camera = camera
        selection = SelectionStore(maximum: maximum)
        fetches = FetchStore(copies: fetchedCopies, post: post)
        model = AssetListModel(showsCamera: camera != nil && showsCameraAtStart)
        camera?.onAvailabilityChanged = { [weak self] available in self?.model.setShowsCamera(available) }
        serviceSubscription = service.join { [weak self] event in self?.hear(event) }
        selectionSubscription = selection.observe { [weak self] change in self?.fetchPicks(among: change.affected) }
        // (A NAS mounted since the last picker was made is seen as remote.)
        RemotePaths.shared.reread()
    }

    /// The widgets are gone: work still under way elsewhere is dropped when it comes back.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        camera?.close()
        // (Copies under way stop, and their partial files go.)
        fetches.close()
        selectionSubscription?.cancel()
        serviceSubscription?.cancel()
        serviceSubscription = nil
        // The last picker of the library stops its scan, at its next file, keeping what it read.
        service.leave()
        StartupTrace.mark("library left")
        // Picks being recorded are waited for a moment (a script's picker ends at its answer).
        _ = recordingPicks.wait(timeout: .now() + 1)
        // Work under way is not waited for (it held a host's window up to 0.2 s when its picker
        // went): it ends when it returns, and what it posts finds the controller closed.
        workers.shutdown(waitsForRunningWork: false)
        subscribers.removeAll()
    }

    // MARK: Recently Picked

    /// The picks handed over (a confirm), in pick order, for the Recently Picked album: written
    /// by a worker (a scan may hold the index's writer), which `close` waits for a moment.
    public func recordPicks(_ ids: [Int64]) {
        guard !ids.isEmpty else { return }
        let library = self.library, group = recordingPicks, post = postToController
        group.enter()
        let submitted = workers.submit {
            defer { group.leave() }
            do {
                try library.recordPicks(ids)
                post { controller in
                    // The album list counts them. Recently Picked, open, takes them in at their
                    // new places, as any change (those picked again move to the top).
                    try? controller.reloadAlbums()
                    if controller.currentAlbum == .recentlyPicked {
                        var change = LibraryChange()
                        change.updated = Set(ids)
                        controller.apply(change)
                    }
                }
            } catch {
                DeveloperLog.say("cannot keep the picks for Recently Picked: \(error)")
            }
        }
        if !submitted { group.leave() }
    }

    /// Forgets what was picked before (the menu's "Clear Recently Picked"); Recently Picked,
    /// open, gives way to Recents.
    public func clearRecentlyPicked() throws {
        try library.clearPicks()
        try reloadAlbums(selecting: currentAlbum == .recentlyPicked ? .smart(.recents) : nil)
    }

    /// Tells the index's notices (rebuilt, kept in memory …) to the person.
    public func reportNotices() {
        for notice in library.notices { publish(.problem(notice.message)) }
    }

    // MARK: Rows

    /// The folders the library is made of.
    public var roots: [FilePath] { library.roots }

    /// Whether the library is the one `folders` would open (`PhotoLibrary.isOpened(for:)`).
    public func showsLibrary(of folders: [FilePath]) -> Bool { library.isOpened(for: folders) }

    /// Whether `path` is on another machine (a cell's cloud badge; downloads, not reads): the
    /// process's one judge, RemotePaths, which the thumbnail loader asks too.
    public func isRemote(_ path: FilePath) -> Bool { RemotePaths.shared.isRemote(path) }

    /// An asset's row: from the library's cache, or one query.
    public func asset(_ id: Int64) -> Asset? {
        if case .found(let asset) = row(id) { return asset }
        return nil
    }

    /// The row of `id`, or why there is none: gone from the index, or the index could not be
    /// read (said once on standard error, with SQLite's words).
    public func row(_ id: Int64) -> RowLookup {
        do {
            guard let asset = try library.asset(id: id) else { return .gone }
            return .found(asset)
        } catch {
            let reason = String(describing: error)
            DeveloperLog.sayOnce("cannot read the index row of asset \(id): \(reason)")
            return .unreadable(reason)
        }
    }

    /// Rows in the order of `ids` (those still in the index), in one query for the missing.
    /// Throws when the index cannot be read: a confirm must not answer with fewer photos.
    public func readAssets(_ ids: [Int64]) throws -> [Asset] { try library.assets(ids: ids) }

    /// The same for what only shows or offers them (the strip, a drag, the picks kept for the
    /// next launch): an index that cannot be read is said once, and none is given.
    public func assets(_ ids: [Int64]) -> [Asset] {
        do {
            return try library.assets(ids: ids)
        } catch {
            DeveloperLog.say("cannot read the rows of \(ids.count) picked photos: \(error)")
            if !toldUnreadableIndex {
                toldUnreadableIndex = true
                publish(.problem(i18n("The photo index cannot be read: some photos cannot be shown")))
            }
            return []
        }
    }

    private var toldUnreadableIndex = false

    /// Reads the rows of the open album's `positions` in one query, so that the cells bound
    /// next find them in the cache instead of querying one by one on the GTK thread.
    public func readRows(at positions: Range<Int>) {
        try? library.readAhead(ids: model.assetIDs(in: positions))
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
        show(try readAlbums(selecting: album))
    }

    /// What `reloadAlbums` reads before it changes anything: the album list with its counts, and
    /// the album to open with its first rows. A picker coming up on screen reads in one turn of
    /// the main loop and shows in the next, after a frame (issue 38, point 6: both in one turn
    /// were 12 ms after the frame that first lays the picker out, and the host missed a frame).
    /// Nothing may change the library's rows in between: the picker reads before its scan and
    /// watcher start (a change applied meanwhile would be lost with the older rows).
    public struct AlbumsRead: Sendable {
        let albums: [AlbumSummary]
        let album: Album
        let result: FetchResult?
        let filter: AssetFilter
    }

    public func readAlbums(selecting album: Album? = nil) throws -> AlbumsRead {
        let wanted = album ?? currentAlbum ?? .smart(.recents)
        // (Every album's count, on the GTK thread: a step of the picker's first frame, issue 38.)
        let albums = try Self.albumsToList(of: library, keeping: wanted)
        let shown = albums.first { $0.album == wanted }?.album ?? albums.first?.album ?? wanted
        let result = shown != currentAlbum || model.fetchResult == nil ? fetch(shown) : nil
        return AlbumsRead(albums: albums, album: shown, result: result, filter: filter)
    }

    /// What `readAlbums` reads, on any thread: the albums with their counts, and `wanted` (else
    /// the first album) with its first rows. A failed fetch gives no result: `show` opens the
    /// album again, and says why it cannot.
    nonisolated static func readAlbums(of library: PhotoLibrary, selecting wanted: Album, filter: AssetFilter) throws -> AlbumsRead {
        let albums = try albumsToList(of: library, keeping: wanted)
        let shown = albums.first { $0.album == wanted }?.album ?? albums.first?.album ?? wanted
        let result = try? library.fetchAssets(in: shown, filter: filter)
        if let result { _ = try? library.assets(ids: result.ids(in: 0..<300)) }
        return AlbumsRead(albums: albums, album: shown, result: result, filter: filter)
    }

    /// The albums the switcher lists, with their counts.
    nonisolated private static func albumsToList(of library: PhotoLibrary, keeping wanted: Album) throws -> [AlbumSummary] {
        StartupTrace.mark("counting albums")
        defer { StartupTrace.mark("albums counted") }
        var albums = try library.albumsWithFolderTrees().filter { $0.count > 0 || $0.album == .smart(.recents) || $0.album == wanted }
        // The tree of a folder with nothing below it is not in the list: it joins it while it is open.
        if case .tree = wanted, !albums.contains(where: { $0.album == wanted }), let tree = try library.summary(of: wanted) { albums.append(tree) }
        return albums
    }

    /// Shows what `readAlbums` read: the switcher's list, and the album in the grid (read again
    /// if the filter changed since).
    public func show(_ read: AlbumsRead) {
        guard !isClosed else { return }
        albums = read.albums
        if let result = read.result, read.filter == filter {
            put(result, of: read.album)
        } else {
            open(read.album)
        }
        publish(.albumsChanged)
    }

    /// Opens `album` in the model. Picks stay: they belong to the library, not to an album.
    public func open(_ album: Album) {
        // Refilling the list re-selects the open album: keep its fetch result.
        guard album != currentAlbum || model.fetchResult == nil, let result = fetch(album) else { return }
        put(result, of: album)
    }

    /// `album`'s fetch result with its first screens' rows read; nil when it cannot be read
    /// (the person is told).
    private func fetch(_ album: Album) -> FetchResult? {
        let result: FetchResult
        do {
            result = try library.fetchAssets(in: album, filter: filter)
        } catch {
            DeveloperLog.say("cannot open the album \(album): \(error)")
            publish(.problem(i18n("The album cannot be opened")))
            // The switcher goes back to the album still shown.
            publish(.albumsChanged)
            return nil
        }
        StartupTrace.mark("album fetched")
        // The rows of the first screens in one query, before their cells bind one by one.
        _ = try? library.assets(ids: result.ids(in: 0..<300))
        StartupTrace.mark("first rows read")
        return result
    }

    /// The grid shows `result`, the fetch result of `album`.
    private func put(_ result: FetchResult, of album: Album) {
        currentAlbum = album
        // A new fetch shows everything: nothing is held above it.
        heldArrivals = []
        publish(.newerAbove(0))
        publish(.albumOpening)
        model.replace(with: result)
        StartupTrace.mark("album in the grid")
        result.loadRemaining(on: workers)
        publish(.albumOpened)
        publish(.albumsChanged)
    }

    /// The open album as remembered between runs: a smart album's name or a folder's path.
    public var albumKey: String? {
        switch currentAlbum {
        case .smart(let smart)?: return smart.name
        case .recentlyPicked?: return Album.recentlyPickedName
        case .folder?: return albums.first { $0.album == currentAlbum }?.folderPath?.displayString
        // A folder with the folders below it: its path after "tree:" (ids change with the index).
        case .tree?: return albums.first { $0.album == currentAlbum }?.folderPath.map { "tree:" + $0.displayString }
        case nil: return nil
        }
    }

    public func album(forKey key: String) -> Album? {
        if let smart = SmartAlbum(name: key) { return .smart(smart) }
        if key == Album.recentlyPickedName { return .recentlyPicked }
        if key.hasPrefix("tree:") {
            let path = FilePath(String(key.dropFirst(5)))
            return try? library.treeAlbum(forFolder: path)
        }
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
            publish(.problem(ni18n("{count} picked photo was deleted or moved, so it is no longer picked",
                             "{count} picked photos were deleted or moved, so they are no longer picked", gone)))
        }
        if change.foldersChanged {
            do { try reloadAlbums() } catch {
                DeveloperLog.say("cannot read the albums: \(error)")
                publish(.problem(i18n("The albums cannot be read")))
            }
        }
        pendingChange.merge(change)
        computeNextChange()
    }

    /// `post` for workers: runs a closure with the controller on the GTK thread if it is still
    /// there then and not closed, so nothing a worker finishes after `close()` reaches the view.
    /// Workers hold it weakly, so that it is let go on the GTK thread, with its model.
    var postToController: @Sendable (@escaping @MainActor (PickerController) -> Void) -> Void {
        { [weak self, post] work in post { if let self, !self.isClosed { work(self) } } }
    }

    private func computeNextChange() {
        guard !computingChange, !pendingChange.isEmpty, let base = model.fetchResult else {
            publish(.contentChanged)
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
                    controller.publish(.contentChanged)
                case .success:
                    break
                case .failure(let error):
                    DeveloperLog.say("cannot show the latest changes: \(error)")
                    controller.publish(.problem(i18n("The latest changes cannot be shown")))
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
            publish(.problem(i18n("The photo was saved as {path}, outside the folders shown here.", ["path": path.displayString])))
            return
        }
        pendingCapture = path
        // The change reaches every picker of the library; this one picks the photo once its
        // grid shows it (after the change, or now if the watcher was quicker).
        service.rescan([path.parent]) { [weak self] failure in
            guard let self, !self.isClosed else { return }
            if let failure {
                self.publish(.problem(i18n("Cannot add the new photo: {reason}", ["reason": "\(failure)"])))
            } else {
                self.pickPendingCapture()
            }
        }
    }

    private var pendingCapture: FilePath?

    /// Picks the capture waiting to be picked, if the open album shows it by now.
    private func pickPendingCapture() {
        guard let path = pendingCapture, let asset = try? library.asset(path: path),
              model.position(of: asset.id) != nil else { return }
        pendingCapture = nil
        if selection.number(of: asset.id) == nil {
            if selection.isFull {
                publish(.notice(i18n("Photo saved, not picked: you can pick up to {maximum}", ["maximum": Localization.number(selection.maximum ?? 0)])))
            } else {
                selection.toggle(asset.id)
            }
        }
        publish(.captureShown(asset.id))
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
        publish(.newerAbove(0))
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
        publish(.newerAbove(heldArrivals.count))
        return true
    }

    /// The open album's months in its order (Ctrl+Up and Ctrl+Down, a timeline): read off the
    /// GTK thread when first asked for, and again once the album changed (a new fetch result);
    /// `done` gets the months of the album open when they are known, at once when they are.
    /// One read at a time: asks made while one runs (a scan changes the album every moment) are
    /// answered by the next, for the album as it is then.
    public func months(then done: @escaping @MainActor ([PhotoLibrary.MonthRun]) -> Void) {
        guard let base = model.fetchResult else { return done([]) }
        if let known = monthsKnown, known.result === base { return done(known.runs) }
        monthsWanted.append(done)
        if !readingMonths { readMonths() }
    }

    /// Where a date is in the open album (the widget's `date`): the position of its newest photo
    /// before `end` (CaptureDate.endOfPeriod), read off the GTK thread; not called when the album
    /// changed meanwhile.
    public func position(before end: Int64, then done: @escaping @MainActor (Int) -> Void) {
        guard let base = model.fetchResult else { return }
        let library = self.library, post = postToController
        workers.submit {
            let position = (try? library.position(before: end, in: base)) ?? nil
            post { controller in
                guard controller.model.fetchResult === base, let position else { return }
                done(position)
            }
        }
    }

    private func readMonths() {
        guard let base = model.fetchResult else { return }
        readingMonths = true
        let library = self.library, post = postToController
        workers.submit {
            let runs = (try? library.monthRuns(of: base)) ?? []
            post { controller in
                controller.readingMonths = false
                guard controller.model.fetchResult === base else {
                    if !controller.monthsWanted.isEmpty { controller.readMonths() }
                    return
                }
                controller.monthsKnown = (base, runs)
                let wanted = controller.monthsWanted
                controller.monthsWanted = []
                for done in wanted { done(runs) }
            }
        }
    }

    /// Applies change details to the model; when the person has scrolled away from the top, the
    /// asset they look at keeps its place on screen and the photos that arrived above it are counted.
    private func applyKeepingAnchor(_ details: FetchResultChangeDetails) {
        let anchor = anchorAsset?()
        let from = anchor.flatMap { model.position(of: $0) }
        publish(.contentWillChange)
        model.apply(details)
        guard let anchor, let from, let to = model.position(of: anchor) else { return }
        if to != from { publish(.anchorMoved(from: from, to: to)) }
    }
}
