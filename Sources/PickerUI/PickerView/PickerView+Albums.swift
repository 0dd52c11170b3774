import CGtk
import Dispatch
import Foundation
import PhotoLibrary
import PickerModel
import Thumbnails

/// Albums: the switcher's list, the open album and how it is remembered.
extension PickerView {
    /// Fills the album switcher (counts read now, when the list is shown) and opens `album`.
    public func showAlbums(selecting album: Album? = nil) throws {
        let album = album ?? currentAlbum ?? .smart(.recents)
        albums = try library.albums().filter { $0.count > 0 || $0.album == .smart(.recents) || $0.album == album }
        // An album that is gone (a deleted folder) falls back to the first, Recents.
        let shown = albums.first { $0.album == album }?.album ?? albums.first?.album ?? album
        switcher.show(albums, current: shown)
        albumChosen(shown)
    }

    func albumChosen(_ album: Album) {
        // Refilling the list re-selects the open album: keep its fetch result.
        guard album != currentAlbum || model.fetchResult == nil,
              let result = try? library.fetchAssets(in: album, types: types) else { return }
        currentAlbum = album
        prefetcher?.reset()
        // The rows of the first screens in one query, before their cells bind one by one.
        _ = try? library.assets(ids: result.ids(in: 0..<300))
        model.replace(with: result)
        result.loadRemainingInBackground()
        updateEmptyState()
    }

    /// The album as remembered between runs: a smart album's name or a folder's path.
    var albumKey: String? {
        switch currentAlbum {
        case .smart(let smart)?: return smart.name
        case .folder?: return albums.first { $0.album == currentAlbum }?.folderPath?.displayString
        case nil: return nil
        }
    }

    func album(forKey key: String) -> Album? {
        if let smart = SmartAlbum(name: key) { return .smart(smart) }
        return (try? library.albums())?.first { $0.folderPath?.displayString == key }?.album
    }
}
