import PhotoLibrary

/// Picks on another machine: each is copied here as it is picked (the FetchStore beside the
/// selection), and a confirmed pick is answered with its copy.
extension PickerController {
    /// A pick on another machine starts its copy at once, in the background, so that it is
    /// likely local by the time the person confirms; an unpick stops it (a finished copy stays
    /// in the cache, for the next time).
    func fetchPicks(among ids: Set<Int64>) {
        for id in ids {
            guard selection.number(of: id) != nil else {
                fetches.cancel(id)
                continue
            }
            guard fetchesRemotePicks, fetches.state(of: id) == nil, let asset = asset(id), asset.path.isLocationURI else { continue }
            fetches.fetch(id, from: asset.path)
        }
    }

    /// What a confirmed pick is answered with: its local copy when it lives on another machine
    /// (nil until that is complete, or when picks are not fetched), else its path.
    public func answerPath(of asset: Asset) -> FilePath? {
        guard asset.path.isLocationURI else { return asset.path }
        return fetchesRemotePicks ? fetches.copy(of: asset.id) : asset.path
    }

    /// The picks whose copies are not complete yet (under way or failed), in pick order.
    public var picksBeingFetched: [Int64] {
        selection.picked.filter { fetches.state(of: $0) != nil && fetches.copy(of: $0) == nil }
    }
}
