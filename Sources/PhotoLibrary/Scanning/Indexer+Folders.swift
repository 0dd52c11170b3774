// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Folder rows: added, updated, their listed time, removed with what they hold.
extension Indexer {
    // MARK: Folders

    struct FolderRecord {
        let id: Int64
        let listedTime: Int64?
    }

    func upsertFolder(_ path: FilePath, relative: [UInt8], root: Root, error: String?) throws -> FolderRecord {
        let existing = try database.statement("SELECT id, error IS NOT ?2, root_id, listed_mtime_ns FROM folders WHERE path = ?1")
        existing.bind(1, blob: path.bytes).bind(2, error)
        if try existing.step() {
            let id = existing.int64(0), errorChanged = existing.int(1) != 0, rootChanged = existing.int64(2) != root.id
            let listed = existing.isNull(3) ? nil : existing.int64(3)
            existing.reset()
            if errorChanged || rootChanged {
                try beginIfNeeded()
                let update = try database.statement("UPDATE folders SET error = ?1, root_id = ?2, relative = ?3 WHERE id = ?4")
                update.bind(1, error).bind(2, root.id).bind(3, blob: relative).bind(4, id)
                try update.run()
                pending.foldersChanged = true
            }
            return FolderRecord(id: id, listedTime: listed)
        }
        existing.reset()
        try beginIfNeeded()
        let insert = try database.statement("INSERT INTO folders(root_id, path, relative, error) VALUES (?1, ?2, ?3, ?4)")
        insert.bind(1, root.id).bind(2, blob: path.bytes).bind(3, blob: relative).bind(4, error)
        try insert.run()
        pending.foldersChanged = true
        return FolderRecord(id: database.lastInsertedRowID, listedTime: nil)
    }

    /// Remembers the time a folder had when it was listed and indexed (written with the batch
    /// that holds its last files, so a scan killed before then lists it again).
    func setListedTime(_ time: Int64?, of folder: FolderRecord) throws {
        guard time != folder.listedTime else { return }
        try beginIfNeeded()
        let update = try database.statement("UPDATE folders SET listed_mtime_ns = ?1 WHERE id = ?2")
        update.bind(1, time).bind(2, folder.id)
        try update.run()
    }

    /// Known folders directly inside `folder`.
    func knownChildFolders(of folder: FilePath) throws -> Set<FilePath> {
        let (low, high) = FolderRules.descendantRange(of: folder)
        let statement = try database.statement("SELECT path FROM folders WHERE path > ?1 AND path < ?2")
        statement.bind(1, blob: low).bind(2, blob: high)
        defer { statement.reset() }
        var result: Set<FilePath> = []
        while try statement.step() {
            let path = statement.blob(0)
            if !path[low.count...].contains(UInt8(ascii: "/")) { result.insert(FilePath(bytes: path)) }
        }
        return result
    }

    /// Removes every root but `kept`, with its folders and their photos.
    func forgetRoots(otherThan kept: [FilePath]) throws {
        let statement = try database.statement("SELECT id, path FROM roots")
        var others: [Int64] = []
        while try statement.step() {
            if !kept.contains(FilePath(bytes: statement.blob(1))) { others.append(statement.int64(0)) }
        }
        statement.reset()
        guard !others.isEmpty else { return }
        try beginIfNeeded()
        for root in others {
            let assets = try database.statement("SELECT a.id FROM assets a JOIN folders f ON a.folder_id = f.id WHERE f.root_id = ?1")
            assets.bind(1, root)
            var removed: [Int64] = []
            while try assets.step() { removed.append(assets.int64(0)) }
            assets.reset()
            for id in removed { try deleteAsset(id) }
            try database.statement("DELETE FROM folders WHERE root_id = ?1").bind(1, root).run()
            try database.statement("DELETE FROM roots WHERE id = ?1").bind(1, root).run()
        }
        pending.foldersChanged = true
        try commit()
    }

    func removeFolderTree(_ folder: FilePath) throws {
        let (low, high) = FolderRules.descendantRange(of: folder)
        let ids = try database.statement("""
            SELECT a.id FROM assets a JOIN folders f ON a.folder_id = f.id
            WHERE f.path = ?1 OR (f.path > ?2 AND f.path < ?3)
            """)
        ids.bind(1, blob: folder.bytes).bind(2, blob: low).bind(3, blob: high)
        var removed: [Int64] = []
        while try ids.step() { removed.append(ids.int64(0)) }
        ids.reset()
        try beginIfNeeded()
        for id in removed { try deleteAsset(id) }
        let folders = try database.statement("DELETE FROM folders WHERE path = ?1 OR (path > ?2 AND path < ?3)")
        folders.bind(1, blob: folder.bytes).bind(2, blob: low).bind(3, blob: high)
        try folders.run()
        if database.changes > 0 { pending.foldersChanged = true }
    }

    func removeAssets(whereFolder folderID: Int64) throws {
        for file in try storedFiles(in: folderID).values { try deleteAsset(file.id) }
    }
}
