// SPDX-License-Identifier: LGPL-2.1-or-later
/// What tests may do that the app never does, kept out of the public API (`@_spi(Testing)`).
extension PhotoLibrary {
    /// Runs `body` on the writer connection in one transaction (synthetic rows for tests).
    @_spi(Testing) public func writeDirectly(_ body: (SQLiteConnection) throws -> Void) throws {
        try withWriter { db in try db.transaction { try body(db) } }
    }

    /// Commits a scan's work every `files` files (what a batch boundary changes, in a small library).
    @_spi(Testing) public func useBatches(of files: Int) {
        indexer.batchFilesForTesting = files
    }

    /// Walks as if `mounts` were this machine's (a virtual file system inside a test's folder).
    @_spi(Testing) public func useSystemMounts(_ mounts: SystemMounts) {
        noteSystemFolders(mounts)  // (before any scan: nothing else runs yet)
    }
}
