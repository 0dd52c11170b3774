// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The albums the library holds (smart albums, folders) and the fetch results of one: what the
/// album switcher lists and the grid shows.
extension PhotoLibrary {
    // MARK: Albums

    /// The album list: smart albums with their counts, then folders that hold media, by name.
    /// Counts are kept exact by the database, so this is cheap even for a million assets.
    public func albums() throws -> [AlbumSummary] {
        try withReader { db in
            var counts: [Int64: Int] = [:]
            let smart = try db.statement("SELECT bit, count FROM smart_album_counts")
            while try smart.step() { counts[smart.int64(0)] = smart.int(1) }
            smart.reset()
            let groups = try db.integer(
                "SELECT count(DISTINCT burst_key) FROM assets WHERE (album_bits & \(SmartAlbum.bursts.bit)) != 0") ?? 0
            var result = SmartAlbum.allCases.map { album in
                AlbumSummary(album: .smart(album), name: album.name, count: counts[album.bit] ?? 0, folderPath: nil,
                             burstGroups: album == .bursts ? Int(groups) : nil)
            }
            result += try folderAlbums(db)
            return result
        }
    }

    /// `albums()` with every folder that holds media in folders below it as a tree album
    /// (`.tree`, counting everything below it), for the album switcher's folder tree. A folder
    /// with photos of its own and below it is there twice: its tree and its own `.folder`.
    /// Folders that hold nothing anywhere below them are left out.
    public func albumsWithFolderTrees() throws -> [AlbumSummary] {
        var result = try albums()
        let own = Dictionary(result.compactMap { summary -> (Int64, AlbumSummary)? in
            if case .folder(let id) = summary.album { (id, summary) } else { nil }
        }, uniquingKeysWith: { first, _ in first })
        let folders: [(id: Int64, path: FilePath, name: String, count: Int)] = try withReader { db in
            let statement = try db.statement("SELECT f.id, f.path, f.relative, f.asset_count, r.path FROM folders f JOIN roots r ON f.root_id = r.id")
            defer { statement.reset() }
            var rows: [(Int64, FilePath, String, Int)] = []
            while try statement.step() {
                let root = FilePath(bytes: statement.blob(4)), relative = statement.blob(2)
                guard roots.contains(root) else { continue }
                let name = String(decoding: relative.isEmpty ? root.lastName : relative, as: UTF8.self)
                rows.append((statement.int64(0), FilePath(bytes: statement.blob(1)), name, statement.int(3)))
            }
            return rows
        }
        // Each folder's photos counted in every folder above it that the index knows (up to its
        // root): a few thousand folders, a few levels deep.
        var index: [[UInt8]: Int] = [:]
        for (position, folder) in folders.enumerated() { index[folder.path.bytes] = position }
        var below = Array(repeating: 0, count: folders.count)
        for folder in folders where folder.count > 0 {
            var path = folder.path.bytes
            while let slash = path.lastIndex(of: UInt8(ascii: "/")), slash > 0 {
                path.removeSubrange(slash...)
                if let parent = index[path] { below[parent] += folder.count }
            }
        }
        var trees: [AlbumSummary] = []
        for (position, folder) in folders.enumerated() where below[position] > 0 {
            // Named as its own album is (its path below the root).
            let name = own[folder.id]?.name ?? folder.name
            trees.append(AlbumSummary(album: .tree(id: folder.id), name: name, count: folder.count + below[position],
                                      folderPath: folder.path, burstGroups: nil))
        }
        result += trees
        return result
    }

    private func folderAlbums(_ db: SQLiteConnection) throws -> [AlbumSummary] {
        let statement = try db.statement("""
            SELECT f.id, f.path, f.relative, f.asset_count, r.path FROM folders f JOIN roots r ON f.root_id = r.id
            WHERE f.asset_count > 0
            """)
        defer { statement.reset() }
        var rows: [(id: Int64, path: FilePath, name: String, count: Int, root: FilePath)] = []
        while try statement.step() {
            let path = FilePath(bytes: statement.blob(1)), relative = statement.blob(2), root = FilePath(bytes: statement.blob(4))
            guard roots.contains(root) else { continue }
            let name = relative.isEmpty ? String(decoding: root.lastName, as: UTF8.self) : String(decoding: relative, as: UTF8.self)
            rows.append((statement.int64(0), path, name, statement.int(3), root))
        }
        // Two roots may hold folders of the same name: prefix those with their root's name.
        var seen: [String: Int] = [:]
        for row in rows { seen[row.name, default: 0] += 1 }
        return String.sortedByName(rows.map { row in
            let name = seen[row.name]! > 1 && !(row.path == row.root)
                ? String(decoding: row.root.lastName, as: UTF8.self) + "/" + row.name : row.name
            return AlbumSummary(album: .folder(id: row.id), name: name, count: row.count, folderPath: row.path, burstGroups: nil)
        }, name: \.name)
    }

    /// The album of a folder of the library (it may hold nothing yet), or nil when the index
    /// does not know the folder.
    public func album(forFolder path: FilePath) throws -> Album? {
        try withReader { db -> Album? in
            let statement = try db.statement("SELECT id FROM folders WHERE path = ?1")
            statement.bind(1, blob: path.bytes)
            defer { statement.reset() }
            return try statement.step() ? .folder(id: statement.int64(0)) : nil
        }
    }

    /// The album of a folder with everything below it, or nil when the index does not know the
    /// folder.
    public func treeAlbum(forFolder path: FilePath) throws -> Album? {
        guard case .folder(let id)? = try album(forFolder: path) else { return nil }
        return .tree(id: id)
    }

    /// The album list's row for `album`: a tree's is its folder's name and everything below it
    /// counted (it is not in `albums()`).
    public func summary(of album: Album) throws -> AlbumSummary? {
        guard case .tree(let id) = album else { return try albums().first { $0.album == album } }
        return try withReader { db -> AlbumSummary? in
            let statement = try db.statement("SELECT f.path, f.relative, r.path FROM folders f JOIN roots r ON f.root_id = r.id WHERE f.id = ?1")
            statement.bind(1, id)
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let path = FilePath(bytes: statement.blob(0)), relative = statement.blob(1), root = FilePath(bytes: statement.blob(2))
            let name = String(decoding: relative.isEmpty ? root.lastName : path.lastName, as: UTF8.self)
            let count = Int(try db.integer(PhotoLibrary.sql(for: album).count) ?? 0)
            return AlbumSummary(album: album, name: name, count: count, folderPath: path, burstGroups: nil)
        }
    }

    /// Finds an album by the name `albums()` shows: smart album names first, then folders. A
    /// trailing "/" ("Videos/") or the id `albums --json` prints ("folder:12") means a folder;
    /// "tree:12" that folder with every folder below it.
    public func album(named name: String) throws -> Album? {
        if name.hasPrefix("tree:"), let id = Int64(name.dropFirst(5)) {
            return try summary(of: .tree(id: id))?.album
        }
        if name.hasPrefix("folder:"), let id = Int64(name.dropFirst(7)) {
            return try withReader { try folderAlbums($0) }.first { $0.album == .folder(id: id) }?.album
        }
        let wantsFolder = name.hasSuffix("/")
        if !wantsFolder, let smart = SmartAlbum(name: name) { return .smart(smart) }
        let folders = try withReader { try folderAlbums($0) }
        let trimmed = wantsFolder ? String(name.dropLast()) : name
        if let match = folders.first(where: { $0.name == trimmed }) { return match.album }
        return folders.first { $0.name.lowercased() == trimmed.lowercased() }?.album
    }

    // MARK: Fetching

    /// Opens an album: one query for its count and first ids; the rest are read as asked for.
    /// `filter` keeps only the assets it admits (types, name patterns); such an album is counted
    /// by a query instead of the kept counts.
    public func fetchAssets(in album: Album, filter assetFilter: AssetFilter = .all) throws -> FetchResult {
        var (filter, countSQL) = PhotoLibrary.sql(for: album)
        if let condition = assetFilter.sqlCondition {
            filter += " AND " + condition
            countSQL = "SELECT count(*) FROM assets WHERE \(filter)"
        }
        let query = "SELECT id FROM assets WHERE \(filter) ORDER BY captured_at DESC, id DESC"
        if location.databasePath == nil {
            return try withReader { db in
                let statement = try db.statement(query)
                defer { statement.reset() }
                var ids: [Int64] = []
                while try statement.step() { ids.append(statement.int64(0)) }
                let result = FetchResult(album: album, count: ids.count, firstIDs: ids, cursor: nil)
                result.filter = assetFilter
                return result
            }
        }
        let connection = try checkoutConnection()
        do {
            // One read transaction: the count and every id come from the same snapshot.
            try connection.execute("BEGIN")
            let count = Int(try connection.integer(countSQL) ?? 0)
            let statement = try connection.uncachedStatement(query)
            var first: [Int64] = []
            while first.count < min(count, FetchResult.firstPage), try statement.step() { first.append(statement.int64(0)) }
            let cursor = FetchResult.Cursor(connection: connection, statement: statement) { [weak self] in self?.checkin($0) }
            let result = FetchResult(album: album, count: count, firstIDs: first, cursor: cursor)
            result.filter = assetFilter
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            checkin(connection)
            throw error
        }
    }

    /// From how many letters a typed name is looked for inside names, not only at their start:
    /// one letter found anywhere ("p" in ".jpg") jumped almost anywhere (issue 40, point 8).
    public static let findsWithinNamesFrom = 3

    /// Where a photo named like `text` is in an open album (type-ahead find): the first whose
    /// file name starts with it, letter case aside, or failing that (from three letters on) the
    /// first whose name holds it; in `fetchResult`'s order. Reads the album's names (60,000 in
    /// about 40 ms here): call it off the GTK thread.
    public func position(ofName text: String, in fetchResult: FetchResult) throws -> Int? {
        let wanted = text.lowercased()
        guard !wanted.isEmpty else { return nil }
        let within = wanted.count >= Self.findsWithinNamesFrom
        var (filter, _) = PhotoLibrary.sql(for: fetchResult.album)
        if let condition = fetchResult.filter.sqlCondition { filter += " AND " + condition }
        var starting: Set<Int64> = [], holding: Set<Int64> = []
        try withReader { db in
            let statement = try db.statement("SELECT id, name FROM assets WHERE \(filter)")
            defer { statement.reset() }
            while try statement.step() {
                let name = String(decoding: statement.blob(1), as: UTF8.self).lowercased()
                if name.hasPrefix(wanted) { starting.insert(statement.int64(0)) } else if within, name.contains(wanted) { holding.insert(statement.int64(0)) }
            }
        }
        let ids = fetchResult.allIDs
        if !starting.isEmpty, let position = ids.firstIndex(where: starting.contains) { return position }
        return holding.isEmpty ? nil : ids.firstIndex(where: holding.contains)
    }

    // MARK: Months

    /// A month of an album: its photos sit together in the album's order, from `start` on.
    public struct MonthRun: Equatable, Sendable {
        public let year: Int
        public let month: Int
        public let start: Int
        public let count: Int
    }

    /// The months of an album in its order (newest first), each a run of consecutive photos:
    /// where Ctrl+Up and Ctrl+Down go, and what a timeline is made of. A photo's month is the
    /// one its date shows (CaptureDate.iso8601: in its own zone when the file says it, the
    /// camera's clock when not, this machine's zone for a file time). One query over the album's
    /// rows, off the GTK thread.
    public func monthRuns(of result: FetchResult) throws -> [MonthRun] {
        var (filter, _) = PhotoLibrary.sql(for: result.album)
        if let condition = result.filter.sqlCondition { filter += " AND " + condition }
        // (Seconds floored, as iso8601 floors them: 1969's last millisecond is 1969's.)
        let seconds = "((captured_at - ((captured_at % 1000) + 1000) % 1000) / 1000)"
        let plausible = Plausible.utcOffsetMinutes
        let month = """
            CASE WHEN capture_offset BETWEEN \(plausible.lowerBound) AND \(plausible.upperBound)
                   THEN strftime('%Y%m', \(seconds) + capture_offset * 60, 'unixepoch')
                 WHEN date_source = \(CaptureDate.Source.embedded.rawValue) THEN strftime('%Y%m', \(seconds), 'unixepoch')
                 ELSE strftime('%Y%m', \(seconds), 'unixepoch', 'localtime') END
            """
        // Counted over the result's own ids: the query reads the index as it is now, and the
        // result may hold back arrivals (held above the view) or predate a change on its way.
        // Rows the result does not hold are skipped; ids the result holds that the query no
        // longer has are counted in the month before them.
        let ids = result.allIDs
        return try withReader { db in
            let statement = try db.statement("SELECT id, \(month) FROM assets WHERE \(filter) ORDER BY captured_at DESC, id DESC")
            defer { statement.reset() }
            var runs: [MonthRun] = []
            var key = -1, start = 0, position = 0
            var held: [Int64: Int]?
            func close(at end: Int) {
                if key >= 0, end > start { runs.append(MonthRun(year: key / 100, month: key % 100, start: start, count: end - start)) }
            }
            while position < ids.count, try statement.step() {
                let id = statement.int64(0), value = statement.int(1)
                if ids[position] != id {
                    // (Rare: a position map only then.)
                    if held == nil { held = Dictionary(ids.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) }
                    guard let at = held?[id], at > position else { continue }
                    position = at
                }
                if value != key {
                    close(at: position)
                    key = value
                    start = position
                }
                position += 1
            }
            close(at: ids.count)
            return runs
        }
    }

    /// Where `--date` opens an album: the position of its newest photo taken before
    /// `endMilliseconds` (the end of the day, month or year asked for, as a camera's clock reads
    /// it), or the last photo when all are later; nil for an empty album.
    public func position(before endMilliseconds: Int64, in result: FetchResult) throws -> Int? {
        guard result.count > 0 else { return nil }
        var (filter, _) = PhotoLibrary.sql(for: result.album)
        if let condition = result.filter.sqlCondition { filter += " AND " + condition }
        let later = try withReader { db in try db.integer("SELECT count(*) FROM assets WHERE \(filter) AND captured_at >= \(endMilliseconds)") } ?? 0
        return min(Int(later), result.count - 1)
    }

    /// The WHERE clause of an album and a query for its count. Bits are literals so that SQLite
    /// matches each album's partial index.
    private static func sql(for album: Album) -> (filter: String, count: String) {
        switch album {
        case .smart(let smart):
            return ("(album_bits & \(smart.bit)) != 0", "SELECT count FROM smart_album_counts WHERE bit = \(smart.bit)")
        case .folder(let id):
            return ("folder_id = \(id) AND (album_bits & 1) != 0", "SELECT asset_count FROM folders WHERE id = \(id)")
        case .tree(let id):
            // The folder, and those whose path goes on from its own and a slash (paths are bytes:
            // compared as blobs).
            let folders = """
                SELECT f.id FROM folders f, folders t WHERE t.id = \(id) AND (f.id = t.id
                OR CAST(substr(f.path, 1, length(t.path) + 1) AS BLOB) = CAST(t.path || '/' AS BLOB))
                """
            let filter = "folder_id IN (\(folders)) AND (album_bits & 1) != 0"
            return (filter, "SELECT count(*) FROM assets WHERE \(filter)")
        }
    }

    /// How an open album changed after `change`: a new fetch result and the exact positions.
    /// Nil when the album is unaffected.
    /// `holdingBack` names assets left out of the new list as if not there yet: arrivals the
    /// window keeps from the person's view until they go to the top.
    public func changeDetails(for fetchResult: FetchResult, after change: LibraryChange,
                              holdingBack held: Set<Int64> = []) throws -> FetchResultChangeDetails? {
        guard !change.touched.isEmpty else { return nil }
        var updated = try fetchAssets(in: fetchResult.album, filter: fetchResult.filter)
        if !held.isEmpty {
            let shown = FetchResult(album: updated.album, ids: updated.allIDs.filter { !held.contains($0) })
            shown.filter = updated.filter
            updated = shown
        }
        let details = FetchResultChangeDetails(before: fetchResult, after: updated, change: change)
        return details.hasChanges ? details : nil
    }
}
