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
            // (Without statistics, SQLite would pick the Bursts album's date index and read each row.)
            let groups = try db.integer("""
                SELECT count(DISTINCT burst_key) FROM assets INDEXED BY assets_burst_keys WHERE (album_bits & \(SmartAlbum.bursts.bit)) != 0
                """) ?? 0
            var result = SmartAlbum.allCases.map { album in
                AlbumSummary(album: .smart(album), name: album.name, count: counts[album.bit] ?? 0, folderPath: nil,
                             burstGroups: album == .bursts ? Int(groups) : nil)
            }
            // Recently Picked after Favorites, once something was picked.
            if let picked = try db.integer(PhotoLibrary.sql(for: .recentlyPicked).count), picked > 0 {
                result.insert(AlbumSummary(album: .recentlyPicked, name: Album.recentlyPickedName, count: Int(picked), folderPath: nil,
                                           burstGroups: nil), at: 2)
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
        if !wantsFolder, SmartAlbum.normalise(name) == SmartAlbum.normalise(Album.recentlyPickedName) { return .recentlyPicked }
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
        let query = "SELECT id FROM assets WHERE \(filter) ORDER BY \(PhotoLibrary.order(of: album))"
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
        guard result.album.isInDateOrder else { return [] }
        var (filter, _) = PhotoLibrary.sql(for: result.album)
        if let condition = result.filter.sqlCondition { filter += " AND " + condition }
        // Counted over the result's own ids: the query reads the index as it is now, and the
        // result may hold back arrivals (held above the view) or predate a change on its way.
        // Rows the result does not hold are skipped; ids the result holds that the query no
        // longer has are counted in the month before them.
        let ids = result.allIDs
        return try withReader { db in
            // (The month is worked out here, not with SQLite's strftime: 0.5 s of 1.6 s at 1M.)
            let statement = try db.statement("SELECT id, captured_at, capture_offset, date_source FROM assets WHERE \(filter) ORDER BY captured_at DESC, id DESC")
            var months = MonthOfDate()
            defer { statement.reset() }
            var runs: [MonthRun] = []
            var key = -1, start = 0, position = 0
            var held: [Int64: Int]?
            func close(at end: Int) {
                if key >= 0, end > start { runs.append(MonthRun(year: key / 100, month: key % 100, start: start, count: end - start)) }
            }
            while position < ids.count, try statement.step() {
                let id = statement.int64(0)
                let value = months.key(milliseconds: statement.int64(1), offsetMinutes: statement.isNull(2) ? nil : statement.int(2),
                                       embedded: statement.int(3) == CaptureDate.Source.embedded.rawValue)
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

    /// Where `--date` and the widget's `date` open an album: the position of its newest photo
    /// taken before `endMilliseconds` (the end of the day, month or year asked for, as a camera's
    /// clock reads it), or the last photo when all are later; nil for an empty album. A binary
    /// search over the result's own order (newest first), reading about 20 dates: exact for what
    /// the grid holds, arrivals held above the view left out.
    public func position(before endMilliseconds: Int64, in result: FetchResult) throws -> Int? {
        guard result.count > 0, result.album.isInDateOrder else { return nil }
        return try withReader { db in
            let statement = try db.statement("SELECT captured_at FROM assets WHERE id = ?")
            defer { statement.reset() }
            func isLater(_ position: Int) throws -> Bool {
                statement.reset()
                _ = statement.bind(1, result.id(at: position))
                // (A row gone since the result was read counts as later: it is skipped.)
                guard try statement.step() else { return true }
                return statement.int64(0) >= endMilliseconds
            }
            var low = 0, high = result.count  // the first position not later is in low...high
            while low < high {
                let middle = (low + high) / 2
                if try isLater(middle) { low = middle + 1 } else { high = middle }
            }
            return min(low, result.count - 1)
        }
    }

    /// The WHERE clause of an album and a query for its count. Bits are literals so that SQLite
    /// matches each album's partial index.
    private static func sql(for album: Album) -> (filter: String, count: String) {
        switch album {
        case .smart(let smart):
            return ("(album_bits & \(smart.bit)) != 0", "SELECT count FROM smart_album_counts WHERE bit = \(smart.bit)")
        case .folder(let id):
            return ("folder_id = \(id) AND (album_bits & 1) != 0", "SELECT asset_count FROM folders WHERE id = \(id)")
        case .recentlyPicked:
            // (Every photo in Recents is in the library's folders: those not are left out.)
            let filter = "id IN (SELECT asset_id FROM picks) AND (album_bits & 1) != 0"
            return (filter, "SELECT count(*) FROM assets WHERE \(filter)")
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

    /// The order of an album's photos: the newest first, or the newest pick first.
    static func order(of album: Album) -> String {
        album.isInDateOrder ? "captured_at DESC, id DESC" : "(SELECT picked_at FROM picks WHERE asset_id = assets.id) DESC, id DESC"
    }

    // MARK: Recently Picked

    /// Picks that were handed over (a confirm), in pick order: the newest picks of the Recently
    /// Picked album, the last the newest. Older picks beyond `recentlyPickedKept` go, and those
    /// of files gone.
    public func recordPicks(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        // (Microseconds: two confirms a moment apart keep their order.)
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        let now = Int64(clock.tv_sec) * 1_000_000 + Int64(clock.tv_nsec) / 1000
        try withWriter { db in
            try db.transaction {
                let insert = try db.statement("INSERT OR REPLACE INTO picks(asset_id, picked_at) VALUES (?1, ?2)")
                defer { insert.reset() }
                for (index, id) in ids.enumerated() {
                    try insert.bind(1, id).bind(2, now + Int64(index)).run()
                }
                try db.execute("DELETE FROM picks WHERE asset_id NOT IN (SELECT id FROM assets)")
                try db.execute("DELETE FROM picks WHERE asset_id NOT IN (SELECT asset_id FROM picks ORDER BY picked_at DESC LIMIT \(Self.recentlyPickedKept))")
            }
        }
    }

    /// How many picks Recently Picked keeps.
    public static let recentlyPickedKept = 1000

    /// Forgets every pick (the menu's "Clear Recently Picked").
    public func clearPicks() throws {
        try withWriter { db in try db.execute("DELETE FROM picks") }
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

/// A date's month as its photo shows it (CaptureDate.iso8601): in its own zone when the file
/// says it, the camera's clock when not, this machine's zone for a file time; as YYYYMM. The
/// dates come in order, so the month of the last local time is kept with its bounds: libc's
/// zone rules are asked once a month, not once a photo.
struct MonthOfDate {
    private var local: (start: Int64, end: Int64, key: Int)?

    mutating func key(milliseconds: Int64, offsetMinutes: Int?, embedded: Bool) -> Int {
        // (Seconds floored, as iso8601 floors them: 1969's last millisecond is 1969's.)
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        if let offsetMinutes, Plausible.utcOffsetMinutes.contains(offsetMinutes) {
            return Self.utcKey(seconds + Int64(offsetMinutes) * 60)
        }
        if embedded { return Self.utcKey(seconds) }
        if let local, seconds >= local.start, seconds < local.end { return local.key }
        var time = time_t(seconds), fields = tm()
        guard localtime_r(&time, &fields) != nil else { return Self.utcKey(seconds) }
        let key = Int(fields.tm_year + 1900) * 100 + Int(fields.tm_mon + 1)
        var first = tm(), next = tm()
        first.tm_year = fields.tm_year
        first.tm_mon = fields.tm_mon
        first.tm_mday = 1
        first.tm_isdst = -1
        next = first
        next.tm_mon += 1
        let start = Int64(mktime(&first)), end = Int64(mktime(&next))
        local = start <= seconds && seconds < end ? (start, end, key) : nil
        return key
    }

    /// The month of a UTC second, from its day number (Howard Hinnant's civil_from_days).
    static func utcKey(_ seconds: Int64) -> Int {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return Int(year) * 100 + Int(month)
    }
}
