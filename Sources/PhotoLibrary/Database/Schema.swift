// SPDX-License-Identifier: LGPL-2.1-or-later
/// The index's versioned schema. `PRAGMA user_version` holds the version; each migration moves the
/// database one version up inside a transaction, so a killed upgrade leaves the old version intact.
enum Schema {
    static let migrations: [String] = [version1, version2, version3, version4, version5, version6, version7, version8, version9]
    static var currentVersion: Int64 { Int64(migrations.count) }

    /// The indexes in date order (every album's, and the partial rows'), as the migrations last
    /// defined them: (name, `CREATE INDEX IF NOT EXISTS …`). A first scan drops them while it
    /// inserts a whole library and builds them again after: each row landed at a random place in
    /// each of them, which cost the single writer more than half its time (`Indexer.scan`).
    static let dateOrderIndexes: [(name: String, create: String)] = {
        var definitions: [String: String] = [:], order: [String] = []
        for statement in migrations.joined(separator: "\n").split(separator: ";") {
            let text = statement.drop { $0.isWhitespace }
            guard text.hasPrefix("CREATE INDEX "), text.contains("captured_at") else { continue }
            let name = String(text.dropFirst("CREATE INDEX ".count).prefix { $0 != " " })
            if definitions[name] == nil { order.append(name) }
            definitions[name] = "CREATE INDEX IF NOT EXISTS " + text.dropFirst("CREATE INDEX ".count)
        }
        return order.map { ($0, definitions[$0]!) }
    }()

    /// The triggers that keep the album counts, as the migrations last defined them: (name,
    /// `CREATE TRIGGER IF NOT EXISTS …`). A first scan drops them with the date indexes (they
    /// were most of what remained of the writer's time per row) and counts once at the end.
    static let countTriggers: [(name: String, create: String)] = {
        var definitions: [String: String] = [:], order: [String] = []
        var rest = Substring(migrations.joined(separator: "\n"))
        while let start = rest.firstRange(of: "CREATE TRIGGER "), let end = rest[start.upperBound...].firstRange(of: "END;") {
            let body = rest[start.upperBound..<end.upperBound]
            let name = String(body.prefix { $0 != " " && $0 != "\n" })
            if definitions[name] == nil { order.append(name) }
            definitions[name] = "CREATE TRIGGER IF NOT EXISTS " + body
            rest = rest[end.upperBound...]
        }
        return order.map { ($0, definitions[$0]!) }
    }()

    /// Sets the album counts the triggers keep from the rows themselves (one pass over the assets).
    static func recount(_ database: SQLiteConnection) throws {
        var bitsCounts: [(bits: Int64, count: Int64)] = []
        let grouped = try database.statement("SELECT album_bits, count(*) FROM assets WHERE album_bits != 0 GROUP BY album_bits")
        while try grouped.step() { bitsCounts.append((grouped.int64(0), grouped.int64(1))) }
        grouped.reset()
        let update = try database.statement("UPDATE smart_album_counts SET count = ?1 WHERE bit = ?2")
        let bits = try database.statement("SELECT bit FROM smart_album_counts")
        var all: [Int64] = []
        while try bits.step() { all.append(bits.int64(0)) }
        bits.reset()
        for bit in all {
            update.bind(1, bitsCounts.filter { $0.bits & bit != 0 }.reduce(0) { $0 + $1.count }).bind(2, bit)
            try update.run()
        }
        try database.execute("""
            UPDATE folders SET asset_count = (SELECT count(*) FROM assets WHERE folder_id = folders.id AND (album_bits & 1) != 0)
            """)
    }

    /// Album membership bits, stored per asset in `album_bits`. Smart albums and the folder albums
    /// read partial indexes keyed on these bits, so opening one never scans unrelated rows.
    static let version1 = """
    CREATE TABLE roots(
        id INTEGER PRIMARY KEY,
        path BLOB NOT NULL UNIQUE
    );
    CREATE TABLE folders(
        id INTEGER PRIMARY KEY,
        root_id INTEGER NOT NULL REFERENCES roots(id),
        path BLOB NOT NULL UNIQUE,
        relative BLOB NOT NULL,
        error TEXT,
        asset_count INTEGER NOT NULL DEFAULT 0,
        scan_generation INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX folders_root ON folders(root_id);
    CREATE TABLE assets(
        -- AUTOINCREMENT: an id is never given to another file, so ids held by the window or a
        -- script never silently point at something else, and change records stay unambiguous.
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        folder_id INTEGER NOT NULL REFERENCES folders(id),
        name BLOB NOT NULL,
        path BLOB NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        inode INTEGER NOT NULL,
        kind INTEGER NOT NULL,
        mime TEXT,
        width INTEGER,
        height INTEGER,
        orientation INTEGER NOT NULL DEFAULT 1,
        captured_at INTEGER NOT NULL,
        capture_offset INTEGER,
        date_source INTEGER NOT NULL DEFAULT 0,
        make TEXT,
        model TEXT,
        lens TEXT,
        duration REAL,
        frame_count INTEGER,
        rating INTEGER,
        traits INTEGER NOT NULL DEFAULT 0,
        album_bits INTEGER NOT NULL DEFAULT 0,
        stem BLOB,
        burst_key TEXT,
        paired_id INTEGER,
        error TEXT
    );
    CREATE UNIQUE INDEX assets_folder_name ON assets(folder_id, name);
    CREATE INDEX assets_errors ON assets(id) WHERE error IS NOT NULL;
    CREATE INDEX album_recents ON assets(captured_at DESC, id DESC) WHERE (album_bits & 1) != 0;
    CREATE INDEX album_favorites ON assets(captured_at DESC, id DESC) WHERE (album_bits & 2) != 0;
    CREATE INDEX album_videos ON assets(captured_at DESC, id DESC) WHERE (album_bits & 4) != 0;
    CREATE INDEX album_screenshots ON assets(captured_at DESC, id DESC) WHERE (album_bits & 8) != 0;
    CREATE INDEX album_selfies ON assets(captured_at DESC, id DESC) WHERE (album_bits & 16) != 0;
    CREATE INDEX album_panoramas ON assets(captured_at DESC, id DESC) WHERE (album_bits & 32) != 0;
    CREATE INDEX album_bursts ON assets(captured_at DESC, id DESC) WHERE (album_bits & 64) != 0;
    CREATE INDEX album_live_photos ON assets(captured_at DESC, id DESC) WHERE (album_bits & 128) != 0;
    CREATE INDEX album_animated ON assets(captured_at DESC, id DESC) WHERE (album_bits & 256) != 0;
    CREATE INDEX album_folder ON assets(folder_id, captured_at DESC, id DESC) WHERE (album_bits & 1) != 0;

    -- Album counts kept exact by triggers, so showing the album list costs no scan.
    CREATE TABLE smart_album_counts(bit INTEGER PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0);
    INSERT INTO smart_album_counts(bit) VALUES (1), (2), (4), (8), (16), (32), (64), (128), (256);
    CREATE TRIGGER assets_counts_insert AFTER INSERT ON assets WHEN NEW.album_bits != 0 BEGIN
        UPDATE smart_album_counts SET count = count + 1 WHERE (NEW.album_bits & bit) != 0;
        UPDATE folders SET asset_count = asset_count + 1 WHERE id = NEW.folder_id AND (NEW.album_bits & 1) != 0;
    END;
    CREATE TRIGGER assets_counts_delete AFTER DELETE ON assets WHEN OLD.album_bits != 0 BEGIN
        UPDATE smart_album_counts SET count = count - 1 WHERE (OLD.album_bits & bit) != 0;
        UPDATE folders SET asset_count = asset_count - 1 WHERE id = OLD.folder_id AND (OLD.album_bits & 1) != 0;
    END;
    CREATE TRIGGER assets_counts_update AFTER UPDATE OF album_bits, folder_id ON assets
    WHEN OLD.album_bits != NEW.album_bits OR OLD.folder_id != NEW.folder_id BEGIN
        UPDATE smart_album_counts SET count = count - 1 WHERE (OLD.album_bits & bit) != 0;
        UPDATE smart_album_counts SET count = count + 1 WHERE (NEW.album_bits & bit) != 0;
        UPDATE folders SET asset_count = asset_count - 1 WHERE id = OLD.folder_id AND (OLD.album_bits & 1) != 0;
        UPDATE folders SET asset_count = asset_count + 1 WHERE id = NEW.folder_id AND (NEW.album_bits & 1) != 0;
    END;
    """

    /// The readers learnt capture dates in IFD0, IPTC and every EXIF item of a HEIF file, a HEIF's
    /// size from its boxes, and the formats GdkPixbuf's loaders read. Rows they would now read
    /// differently are marked with a size no file has, so the next scan reads those files again
    /// (keeping their ids); nothing else is touched.
    static let version2 = """
    UPDATE assets SET size = -1
    WHERE error IS NOT NULL
       OR (kind = 1 AND (date_source = 0 OR mime IN ('image/heif', 'image/heic', 'image/heif-sequence', 'image/heic-sequence', 'image/avif')));
    """

    /// Pairs are relinked per name stem (a batch in a folder of 200,000 files read the whole folder
    /// before); a folder remembers its modification time when it was listed, so a rescan of an
    /// unchanged library stats folders instead of listing them (NULL: list it next time); a row
    /// whose file was only dated by a scan's first pass waits for its full read, newest first.
    static let version3 = """
    CREATE INDEX assets_folder_stem ON assets(folder_id, stem);
    ALTER TABLE folders ADD COLUMN listed_mtime_ns INTEGER;
    ALTER TABLE assets ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX assets_partial ON assets(captured_at DESC, id DESC) WHERE partial != 0;
    """

    /// A capture date without a time-zone offset was read in the zone of the machine that indexed
    /// it (23:56 in Seoul stored as 14:56 UTC); it is now the camera's wall-clock time, kept as if
    /// on UTC (`CaptureDate.isWallClock`). Those rows are read again (keeping their ids), and
    /// their folders listed again even if unchanged.
    static let version4 = """
    UPDATE assets SET size = -1 WHERE date_source = 1 AND capture_offset IS NULL;
    UPDATE folders SET listed_mtime_ns = NULL WHERE id IN (SELECT folder_id FROM assets WHERE size = -1);
    """

    /// A file time more than a day ahead was believed (a file dated 2255 sat first in Recents
    /// for ever); such a file is now dated by its status change time (`Plausible.fileDate`).
    /// Those rows are read again.
    static let version5 = """
    UPDATE assets SET size = -1 WHERE date_source = 0 AND captured_at > (CAST(strftime('%s', 'now') AS INTEGER) + 86400) * 1000;
    UPDATE folders SET listed_mtime_ns = NULL WHERE id IN (SELECT folder_id FROM assets WHERE size = -1);
    """

    /// A metadata worker ended from outside (the OOM killer, earlyoom, a person's kill) blamed
    /// the file it was on, for good ("the metadata reader stopped on this file"; SIGTERM read as
    /// a crash); such an end is now tried again, and blames a file only the second time (issue
    /// 37). Those rows are read again.
    static let version6 = """
    UPDATE assets SET size = -1 WHERE error IN ('the metadata reader stopped on this file',
        'the metadata reader crashed on this file (Terminated)', 'the metadata reader crashed on this file (Interrupt)',
        'the metadata reader crashed on this file (Hangup)', 'the metadata reader crashed on this file (Alarm clock)',
        'the metadata reader crashed on this file (Broken pipe)');
    UPDATE folders SET listed_mtime_ns = NULL WHERE id IN (SELECT folder_id FROM assets WHERE size = -1);
    """

    /// A date inside a file more than a day ahead of the clock was refused for good: a first
    /// index made while the clock was a year behind lost that year's dates (issue 37). A row now
    /// keeps the earliest date it refused, and is read again once the clock has passed it
    /// (`Indexer.readAgainWhatTheClockPassed`). Photos that may have lost one so (dated by their
    /// file, of a type that holds EXIF) are read again once.
    static let version7 = """
    ALTER TABLE assets ADD COLUMN refused_date_ms INTEGER;
    CREATE INDEX assets_refused_date ON assets(refused_date_ms) WHERE refused_date_ms IS NOT NULL;
    UPDATE assets SET size = -1 WHERE kind = 1 AND date_source != 1 AND error IS NULL
        AND mime IN ('image/jpeg', 'image/heif', 'image/heic', 'image/avif', 'image/tiff', 'image/webp');
    UPDATE folders SET listed_mtime_ns = NULL WHERE id IN (SELECT folder_id FROM assets WHERE size = -1);
    """

    /// What the person picked before (the Recently Picked album): each pick of a confirm and
    /// when (microseconds), the last picked the newest. Rows of files gone since are left out by a join and
    /// dropped as picks are recorded.
    static let version8 = """
    CREATE TABLE picks(asset_id INTEGER PRIMARY KEY, picked_at INTEGER NOT NULL);
    CREATE INDEX picks_order ON picks(picked_at DESC);
    """

    /// The album list's count of burst groups read every burst's row (2.8 ms of the GTK thread
    /// at 2,400 bursts, while a window was built); this index holds the keys alone (0.2 ms).
    static let version9 = """
    CREATE INDEX assets_burst_keys ON assets(burst_key) WHERE (album_bits & 64) != 0;
    """
}
