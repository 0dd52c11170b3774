// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
@_spi(Testing) import PhotoLibrary

/// Writes index rows for assets that do not exist on disk: a large library in seconds, for tests
/// of what sits above the index (a 1,000,000-asset grid). Lives with the tests: the app never
/// writes rows for files that are not there.
public enum SyntheticLibrary {
    /// A library of `count` synthetic photos in a new temporary folder, with its own index.
    public static func make(_ name: String, count: Int) throws -> (library: PhotoLibrary, root: FilePath) {
        let root = FilePath(TestSupport.temporaryDirectory(name + "-library").path)
        let index = TestSupport.temporaryDirectory(name + "-index").appendingPathComponent("index.sqlite")
        let library = try PhotoLibrary(roots: [root], location: IndexLocation(databasePath: index.path))
        try library.scan()
        try fill(library, root: root, count: count)
        return (library, root)
    }

    /// A library of real files: the demo library's first JPEG copied to each of `paths` under a
    /// new folder "Pictures" (plus an "Empty/Inside" folder holding nothing), scanned.
    public static func folders(_ name: String, photos paths: [String]) throws -> (library: PhotoLibrary, root: URL) {
        let root = TestSupport.temporaryDirectory(name).appendingPathComponent("Pictures")
        let demo = TestSupport.packageRoot.appendingPathComponent("data/demo-library/Camera/2023")
        guard let source = try FileManager.default.contentsOfDirectory(atPath: demo.path).sorted().first(where: { $0.hasSuffix(".JPG") }) else {
            throw CocoaError(.fileNoSuchFile)
        }
        for path in paths {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: demo.appendingPathComponent(source), to: file)
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Empty/Inside"), withIntermediateDirectories: true)
        let index = TestSupport.temporaryDirectory(name + "-index").appendingPathComponent("index.sqlite")
        let library = try PhotoLibrary(roots: [FilePath(root.path)], location: IndexLocation(databasePath: index.path))
        try library.scan()
        return (library, root)
    }

    /// Adds `count` photos under `root` (which must be one of `library`'s roots), spread over ten
    /// years, 5 % favourites, in 200 folders.
    public static func fill(_ library: PhotoLibrary, root: FilePath, count: Int) throws {
        try library.writeDirectly { db in
            let rootID = try db.integer("SELECT id FROM roots WHERE path = x'\(hex(root.bytes))'")
                ?? { try db.execute("INSERT INTO roots(path) VALUES (x'\(hex(root.bytes))')"); return db.lastInsertedRowID }()
            let firstFolder = (try db.integer("SELECT coalesce(max(id), 0) FROM folders") ?? 0) + 1
            for index in 0..<200 {
                let folder = root.appending(String(format3(index)))
                try db.execute("INSERT INTO folders(root_id, path, relative) VALUES (\(rootID), x'\(hex(folder.bytes))', x'\(hex(Array("folder-\(format3(index))".utf8)))')")
            }
            try db.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
                                   captured_at, date_source, traits, album_bits, stem)
                SELECT \(firstFolder) + (i % 200), CAST('IMG_' || i || '.jpg' AS BLOB),
                       CAST(x'\(hex(root.bytes))' || '/' || printf('%03d', i % 200) || '/IMG_' || i || '.jpg' AS BLOB),
                       100000 + i, 1420070400000000000 + i * 300000000000, i, 1, 'image/jpeg', 320, 240, 1,
                       1420070400000 + ((i * 7919) % 315360000) * 1000, 1,
                       1 | (CASE WHEN i % 20 = 0 THEN 2 ELSE 0 END), 1 | (CASE WHEN i % 20 = 0 THEN 2 ELSE 0 END),
                       CAST('IMG_' || i AS BLOB)
                FROM n
                """)
        }
    }

    /// Adds `count` photos newer than any `fill` wrote (2030), as a scan that found them would;
    /// returns their ids, for a `LibraryChange`.
    @discardableResult
    public static func addNewest(_ library: PhotoLibrary, root: FilePath, count: Int) throws -> Set<Int64> {
        var ids: Set<Int64> = []
        try library.writeDirectly { db in
            let folder = try db.integer("SELECT min(id) FROM folders WHERE path > x'\(hex(root.bytes))'") ?? 1
            let first = (try db.integer("SELECT coalesce(max(id), 0) FROM assets") ?? 0) + 1
            for index in 0..<count {
                let name = "NEW_\(first + Int64(index)).jpg"
                try db.execute("""
                    INSERT INTO assets(folder_id, name, path, size, mtime_ns, inode, kind, mime, width, height, orientation,
                                       captured_at, date_source, traits, album_bits, stem)
                    VALUES (\(folder), CAST('\(name)' AS BLOB), CAST(x'\(hex(root.bytes))' || '/new/\(name)' AS BLOB), 1000, 0, 0, 1,
                            'image/jpeg', 320, 240, 1, \(1_893_456_000_000 + Int64(index) * 1000), 1, 1, 1, CAST('NEW' AS BLOB))
                    """)
                ids.insert(db.lastInsertedRowID)
            }
        }
        return ids
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    private static func format3(_ value: Int) -> String {
        value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)"
    }
}
