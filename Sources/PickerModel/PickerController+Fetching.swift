// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import PhotoLibrary

/// Photos on another machine: each pick is copied here as it is picked (the FetchStore beside the
/// selection), and a confirmed pick is answered with its copy; folders whose server does not
/// answer are marked offline.
extension PickerController {
    /// A pick on another machine starts its copy at once, in the background, so that it is
    /// likely local by the time the person confirms; an unpick stops it (a finished copy stays
    /// in the cache, for the next time).
    func fetchPicks(among ids: Set<Int64>) {
        if heldFetches != nil {
            heldFetches?.formUnion(ids)
            return
        }
        for id in ids {
            guard selection.number(of: id) != nil else {
                fetches.cancel(id)
                continue
            }
            guard fetchesRemotePicks, fetches.state(of: id) == nil, let asset = asset(id), isRemote(asset.path),
                  let location = Self.fetchLocation(of: asset.path) else { continue }
            fetches.fetch(id, from: location, size: asset.version.size)
        }
    }

    /// Holds back the copies the picks and unpicks from now start and stop, until
    /// `releaseFetches()`: a press on a cell picks or unpicks at once, but a press that begins a
    /// drag is undone, and meanwhile it had stopped a pick's copy, finished or not, and started it
    /// again from nothing, so the drag found no copy to hand over.
    public func holdFetches() {
        releaseFetches()
        heldFetches = []
    }

    /// Starts and stops the copies of what was picked and unpicked since `holdFetches()`, as it
    /// stands now: a press undone changes nothing.
    public func releaseFetches() {
        guard let held = heldFetches else { return }
        heldFetches = nil
        fetchPicks(among: held)
    }

    /// Where a pick on another machine is copied from: its location, or the `file://` URI of a
    /// file on a network file system (an NFS or sshfs mount). Such a path is a valid local path,
    /// but each read of it is a download: an app handed it would wait on the network itself,
    /// with no ring, and find nothing when the server is gone.
    static func fetchLocation(of path: FilePath) -> FilePath? {
        path.isLocationURI ? path : FetchedCopies.location(ofLocalFile: path)
    }

    /// What a confirmed pick is answered with: its local copy when it lives on another machine
    /// (nil until that is complete), else its path; with picks not fetched (`--uri`), its path.
    public func answerPath(of asset: Asset) -> FilePath? {
        guard isRemote(asset.path) else { return asset.path }
        return fetchesRemotePicks ? fetches.copy(of: asset.id) : asset.path
    }

    /// The picks whose copies are not complete yet (under way or failed), in pick order.
    public var picksBeingFetched: [Int64] {
        selection.picked.filter { fetches.state(of: $0) != nil && fetches.copy(of: $0) == nil }
    }

    // MARK: Folders that do not answer

    /// Whether `path` lies in a library folder on another machine that does not answer now, or
    /// in one that is not there (a disk not plugged in): its cell is dimmed and says so.
    public func isOffline(_ path: FilePath) -> Bool {
        service.offlineRoots.keys.contains { path == $0 || path.relative(to: $0) != nil }
    }

    /// The host of a location URI, without its user and port: "nas" of "sftp://me@nas:2222/photos".
    public static func host(of location: FilePath) -> String {
        let text = location.displayString
        let parts = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // ("sftp:", "", the authority, the path)
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return text }
        var authority = parts[2]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            authority = authority[...close]  // an IPv6 address: its colons are its own
        } else if let colon = authority.lastIndex(of: ":") {
            authority = authority[..<colon]
        }
        return authority.isEmpty ? text : String(authority)
    }

    /// A folder on another machine stopped answering, or answers again: each one that stopped is
    /// said once; a pick whose copy failed meanwhile is fetched again once its folder answers.
    func offlineChanged() {
        for (root, reason) in service.offlineRoots.sorted(by: { $0.key < $1.key }) where toldOffline.insert(root).inserted {
            let folder = String(decoding: root.lastName, as: UTF8.self)
            guard root.isLocationURI else {
                publish(.folderOffline(root, i18n("“{folder}” is not there: its photos can be picked once its disk is connected", ["folder": folder])))
                continue
            }
            // (A toast is one line: the folder's name and its host, not the whole URI.)
            publish(.folderOffline(root, i18n("“{folder}” on {host} cannot be reached ({reason})", ["folder": folder, "host": Self.host(of: root), "reason": reason])))
        }
        for id in selection.picked {
            guard case .failed? = fetches.state(of: id), let asset = asset(id), !isOffline(asset.path) else { continue }
            fetches.retry(id)
        }
        publish(.offlineChanged)
    }
}
