// SPDX-License-Identifier: LGPL-2.1-or-later
/// The albums the library makes from what files are, as a phone's photo picker does.
/// Membership rules are the README's ("Albums"); see `AlbumRules`. The tests check them against
/// the manifest of `Tests/Generator/make-test-library`.
public enum SmartAlbum: Int, CaseIterable, Sendable {
    case recents, favorites, videos, screenshots, selfies, panoramas, bursts, livePhotos, animated

    /// The bit an asset's `album_bits` column carries for this album.
    public var bit: Int64 { 1 << Int64(rawValue) }

    public var name: String {
        switch self {
        case .recents: "Recents"
        case .favorites: "Favorites"
        case .videos: "Videos"
        case .screenshots: "Screenshots"
        case .selfies: "Selfies"
        case .panoramas: "Panoramas"
        case .bursts: "Bursts"
        case .livePhotos: "Live Photos"
        case .animated: "Animated"
        }
    }

    /// Matches "Live Photos", "live-photos", "livephotos", "Favourites" …
    public init?(name: String) {
        let key = SmartAlbum.normalise(name)
        let aliases: [String: SmartAlbum] = ["favourites": .favorites, "live": .livePhotos, "recent": .recents,
                                             "all": .recents, "animations": .animated, "panorama": .panoramas]
        if let album = SmartAlbum.allCases.first(where: { SmartAlbum.normalise($0.name) == key }) ?? aliases[key] {
            self = album
        } else {
            return nil
        }
    }

    static func normalise(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}

/// A set of smart albums, as stored per asset.
public struct AlbumBits: OptionSet, Hashable, Sendable {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ album: SmartAlbum) { self.rawValue = album.bit }

    public func contains(_ album: SmartAlbum) -> Bool { rawValue & album.bit != 0 }
    public var albums: [SmartAlbum] { SmartAlbum.allCases.filter { contains($0) } }
}

/// An album to open: a smart album or one of the user's folders.
public enum Album: Hashable, Sendable {
    case smart(SmartAlbum)
    case folder(id: Int64)
    /// A folder and every folder below it: what a script's `--filename` opens when it names a
    /// folder whose photos are all in subfolders ("~/Pictures/Trip/" with a folder a day). Not
    /// in the album list; named "tree:ID".
    case tree(id: Int64)
    /// What this person picked before, the newest pick first (the `picks` table: the picks of
    /// every confirm, kept until cleared). Not in date order: it has no timeline. Named
    /// "Recently Picked".
    case recentlyPicked

    /// The name scripts and the remembered album use for `.recentlyPicked`.
    public static let recentlyPickedName = "Recently Picked"

    /// A smart album, or Recently Picked: the albums above the folders.
    public var isSmart: Bool {
        switch self {
        case .smart, .recentlyPicked: true
        case .folder, .tree: false
        }
    }

    /// Whether the album is in date order, the newest first (every album but Recently Picked):
    /// what months, a timeline and a date to go to need.
    public var isInDateOrder: Bool { self != .recentlyPicked }
}

/// A row of the album list: what to show, counted when the list is asked for.
public struct AlbumSummary: Hashable, Sendable {
    public let album: Album
    public let name: String
    public let count: Int
    /// For folder albums: the folder on disk.
    public let folderPath: FilePath?
    /// For Bursts: how many bursts (groups of frames shot in one second).
    public let burstGroups: Int?
}
