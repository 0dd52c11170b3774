// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// One row of the album switcher's folder tree.
public struct AlbumTreeRow: Equatable, Sendable {
    public let summary: AlbumSummary
    /// How far in the row is drawn (0: a top folder).
    public let depth: Int
    /// What the row is called in the tree: its path below the row it is under ("NIKON Z 6/2019"
    /// when the folder between holds nothing but that one).
    public let title: String
    /// The tree row this one is under; nil at the top.
    public let parent: Album?
    /// A folder with folders below it: the row opens them all, and expands to list them.
    public var hasChildren: Bool { if case .tree = summary.album { true } else { false } }
    /// A folder's photos without its subfolders', listed first under its tree row.
    public let isFolderItself: Bool

    public init(summary: AlbumSummary, depth: Int = 0, title: String, parent: Album? = nil, isFolderItself: Bool = false) {
        self.summary = summary
        self.depth = depth
        self.title = title
        self.parent = parent
        self.isFolderItself = isFolderItself
    }
}

/// The album switcher's folders as a tree (issue 40, point 22): 528 folders in one flat list
/// ("2019-01 / Camera/NIKON Z 6/2019") were a list to scroll through, not to find in.
///
/// `albums` is what `PhotoLibrary.albumsWithFolderTrees` lists: a `.tree` album for every folder
/// with photos below it, a `.folder` album for every folder with photos of its own. A tree row is
/// the folder with everything below it; under it come the folder's own photos ("This folder
/// only", when it has any) and then its subfolders, by name. A folder holding nothing but one
/// subfolder is not a row of its own: its subfolder's row says both names. Smart albums are
/// left out; a folder album with no path is a top row.
public enum AlbumTree {
    public static func rows(_ albums: [AlbumSummary]) -> [AlbumTreeRow] {
        var trees: [[UInt8]: AlbumSummary] = [:], own: [[UInt8]: AlbumSummary] = [:]
        var pathless: [AlbumSummary] = []
        for summary in albums {
            switch summary.album {
            case .smart, .recentlyPicked: continue
            case .tree:
                if let path = summary.folderPath { trees[path.bytes] = summary } else { pathless.append(summary) }
            case .folder:
                if let path = summary.folderPath { own[path.bytes] = summary } else { pathless.append(summary) }
            }
        }
        // Each folder's node (its tree, else its own album) under the nearest tree above it.
        var children: [[UInt8]: [[UInt8]]] = [:]
        var tops: [[UInt8]] = []
        for path in Set(trees.keys).union(own.keys) {
            var above = path
            var parent: [UInt8]?
            while let slash = above.lastIndex(of: UInt8(ascii: "/")), slash > 0 {
                above.removeSubrange(slash...)
                if trees[above] != nil, above != path {
                    parent = above
                    break
                }
            }
            if let parent { children[parent, default: []].append(path) } else { tops.append(path) }
        }
        func node(_ path: [UInt8]) -> AlbumSummary { trees[path] ?? own[path]! }

        var rows: [AlbumTreeRow] = []
        /// `path`'s row, with `prefix` (the names of the folders passed over) before its own title.
        func emit(_ path: [UInt8], under parent: AlbumSummary?, depth: Int) {
            var path = path
            // A folder of nothing but one subfolder: that subfolder stands for it.
            while trees[path] != nil, own[path] == nil, let only = children[path], only.count == 1 { path = only[0] }
            let summary = node(path)
            rows.append(AlbumTreeRow(summary: summary, depth: depth, title: title(of: summary, under: parent),
                                     parent: parent?.album, isFolderItself: false))
            guard trees[path] != nil else { return }
            if let itself = own[path] {
                rows.append(AlbumTreeRow(summary: itself, depth: depth + 1, title: title(of: itself, under: parent),
                                         parent: summary.album, isFolderItself: true))
            }
            for child in sorted(children[path] ?? [], under: summary) { emit(child, under: summary, depth: depth + 1) }
        }
        func sorted(_ paths: [[UInt8]], under parent: AlbumSummary?) -> [[UInt8]] {
            String.sortedByName(paths) { title(of: node($0), under: parent) }
        }
        // (Folders without a path, by name among the others.)
        let named = tops.map { (title: title(of: node($0), under: nil), path: Optional($0), summary: node($0)) }
            + pathless.map { (title: $0.name, path: nil, summary: $0) }
        for top in String.sortedByName(named, name: \.title) {
            if let path = top.path { emit(path, under: nil, depth: 0) }
            else { rows.append(AlbumTreeRow(summary: top.summary, title: top.title)) }
        }
        return rows
    }

    /// A folder's name below `parent`'s: its album name ("Camera/2019", the path below its
    /// library folder) less the parent's and a slash. A library folder's own name has no parent
    /// in it, and its folders' names do not start with it.
    static func title(of summary: AlbumSummary, under parent: AlbumSummary?) -> String {
        guard let parent, summary.name.hasPrefix(parent.name + "/") else { return summary.name }
        return String(summary.name.dropFirst(parent.name.count + 1))
    }
}
