// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Walking the folders below a root; passing unchanged folders by their time.
extension Indexer {
    // MARK: Walking

    func walk(from start: FilePath, root: Root, recursive: Bool, scope: ScanScope) throws {
        // (`--library /proc`, or a link to it: said once when the library opened.)
        let resolvedRoot = SystemMounts.resolved(root.path)
        if systemMounts.isVirtual(start, below: root.path, resolvedRoot: resolvedRoot) { return }
        // Known folders, read once: an unchanged folder is passed by its time alone.
        let known = scope == .changedFolders ? try knownFolders(under: root) : [:]
        var stack: [(path: FilePath, recursive: Bool)] = [(start, recursive)]
        while let (folder, walkChildren) = stack.popLast() {
            if isCancelled?() == true {
                try commit()
                throw ScanError.cancelled
            }
            if let record = known[folder], let listed = record.listedTime, walkChildren,
               DirectoryListing.modificationTime(of: folder, followLink: folder == root.path) == listed {
                // No entry was added, removed or renamed here since it was listed.
                progress.foldersSeen += 1
                progress.foldersUnchanged += 1
                for child in record.children.reversed() { stack.append((child, true)) }
                continue
            }
            // (Below a location URI, as names: an album is called "Summer 2024", not "Summer%202024".)
            let relative = folder.relative(to: root.path).map { root.path.isLocationURI ? FilePath.percentDecoded($0) : $0 } ?? []
            // Into an empty index every file is new: its readers learn its version.
            switch DirectoryListing.list(folder, followLink: folder == root.path, statsFiles: !intoEmptyIndex) {
            case .failure(.vanished) where try folder == root.path && !root.path.isLocationURI && holdsFolders(of: root):
                // A root of the library that is not there: a disk not plugged in (or not yet
                // mounted) more often than photos deleted. Its photos stay, offline, until it is back.
                throw RootUnreachable(reason: Indexer.notConnected)
            case .failure(.vanished):
                try removeFolderTree(folder)
            case .failure(.unreachable(let reason)):
                // A server that stopped answering: everything known of this root stays as it was.
                throw RootUnreachable(reason: reason)
            case .failure(.unreadable(let reason)):
                // Its files cannot be read any more: drop them, and say why in the error list.
                let record = try upsertFolder(folder, relative: relative, root: root, error: reason)
                try removeAssets(whereFolder: record.id)
                for child in try knownChildFolders(of: folder) { try removeFolderTree(child) }
                try setListedTime(nil, of: record)
                progress.foldersSeen += 1
            case .success(let listing):
                let record = try upsertFolder(folder, relative: relative, root: root, error: nil)
                progress.foldersSeen += 1
                // The kernel's virtual file systems (/proc, /sys …) hold no photos: not entered.
                let subfolders = listing.entries.filter { $0.type == .directory }.map { folder.appending($0.name) }
                    .filter { !systemMounts.isVirtual($0, below: root.path, resolvedRoot: resolvedRoot) }
                let known = try knownChildFolders(of: folder)
                for gone in known.subtracting(subfolders) { try removeFolderTree(gone) }
                for subfolder in subfolders.reversed() where walkChildren || !known.contains(subfolder) {
                    stack.append((subfolder, true))
                }
                if defersReading(of: folder) {
                    deferReading(folderID: record.id, path: folder, root: root, entries: listing.entries,
                                 record: record, listedTime: Self.trustworthy(listing.modificationTimeNanoseconds))
                } else {
                    try index(folderID: record.id, path: folder, entries: listing.entries)
                    try setListedTime(Self.trustworthy(listing.modificationTimeNanoseconds), of: record)
                }
            }
            try commitIfDue()
        }
    }

    /// A remote root's server stopped answering during its walk, or a local root is not there
    /// (`Indexer.unreachableRoots`).
    struct RootUnreachable: Error {
        let reason: String
    }

    /// Why a local root is unreachable: it is not there (`PhotoLibrary.unreachableRoots`).
    static let notConnected = "not connected"

    /// Whether the index holds any folder of `root`.
    func holdsFolders(of root: Root) throws -> Bool {
        let statement = try database.statement("SELECT EXISTS (SELECT 1 FROM folders WHERE root_id = ?1)")
        statement.bind(1, root.id)
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0) != 0
    }

    /// Walks each root in turn; a remote root that does not answer keeps what the index holds of
    /// it, is noted in `unreachableRoots`, and the others are walked still.
    func walk(roots: [Root], scope: ScanScope) throws {
        unreachableRoots = [:]
        for root in roots {
            do {
                try walk(from: root.path, root: root, recursive: true, scope: scope)
            } catch let error as RootUnreachable {
                try commit()
                unreachableRoots[root.path] = error.reason
            }
        }
    }

    /// A folder's time is kept only when it is at least two seconds old: timestamps are coarse
    /// (a few milliseconds on ext4), so an entry added just after the listing, within the same
    /// tick, would leave the time unchanged and go unseen. A folder changed that recently is
    /// simply listed again next time.
    static func trustworthy(_ time: Int64?) -> Int64? {
        guard let time else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nowNanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        return time < nowNanoseconds - 2_000_000_000 ? time : nil
    }

    struct KnownFolder {
        var listedTime: Int64?
        var children: [FilePath] = []
    }

    /// Every known folder below `root` with its listed time and known children (a folder that
    /// could not be read has no time: it is tried again).
    func knownFolders(under root: Root) throws -> [FilePath: KnownFolder] {
        let statement = try database.statement("SELECT path, CASE WHEN error IS NULL THEN listed_mtime_ns END FROM folders WHERE root_id = ?1")
        statement.bind(1, root.id)
        defer { statement.reset() }
        var folders: [FilePath: KnownFolder] = [:]
        while try statement.step() {
            let path = FilePath(bytes: statement.blob(0))
            folders[path, default: KnownFolder()].listedTime = statement.isNull(1) ? nil : statement.int64(1)
            if path != root.path, path.relative(to: root.path) != nil {
                folders[path.parent, default: KnownFolder()].children.append(path)
            }
        }
        for key in folders.keys { folders[key]?.children.sort() }
        return folders
    }
}
