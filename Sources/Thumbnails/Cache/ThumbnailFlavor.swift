// SPDX-License-Identifier: LGPL-2.1-or-later
/// The sizes of the freedesktop thumbnail cache: each a bounding box in pixels.
public enum ThumbnailFlavor: Int, CaseIterable, Comparable, Sendable {
    case normal = 128
    case large = 256
    case xLarge = 512
    case xxLarge = 1024

    public var pixels: Int { rawValue }

    /// The folder name below `thumbnails/`.
    public var directoryName: String {
        switch self {
        case .normal: "normal"
        case .large: "large"
        case .xLarge: "x-large"
        case .xxLarge: "xx-large"
        }
    }

    public init?(name: String) {
        guard let flavor = Self.allCases.first(where: { $0.directoryName == name }) else { return nil }
        self = flavor
    }

    /// The smallest flavour at least as large as a cell of `points` at display `scale`.
    public static func smallest(atLeast points: Int, scale: Int = 1) -> ThumbnailFlavor {
        let needed = points * max(1, scale)
        return allCases.first { $0.pixels >= needed } ?? .xxLarge
    }

    public static func < (lhs: ThumbnailFlavor, rhs: ThumbnailFlavor) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The size of `width` × `height` scaled to fit in a `box` square, never enlarged.
    static func fit(width: Int, height: Int, in box: Int) -> (width: Int, height: Int) {
        guard width > box || height > box else { return (max(1, width), max(1, height)) }
        if width >= height {
            return (box, max(1, Int((Double(height) * Double(box) / Double(width)).rounded())))
        }
        return (max(1, Int((Double(width) * Double(box) / Double(height)).rounded())), box)
    }
}
