// SPDX-License-Identifier: LGPL-2.1-or-later
/// Decides which smart albums a file belongs to from its own metadata. Live Photos (a pairing of
/// two files) are decided per folder by the indexer; see `LivePhotoPairing`.
enum AlbumRules {
    static func traits(of media: MediaFile, fileName: [UInt8]) -> AlbumBits {
        var bits: AlbumBits = [.init(.recents)]
        if let rating = media.rating, rating >= 4 { bits.insert(.init(.favorites)) }
        if media.kind == .video { bits.insert(.init(.videos)) }
        guard media.kind == .photo else { return bits }
        if isScreenshot(fileName: fileName, mimeType: media.mimeType) { bits.insert(.init(.screenshots)) }
        if let lens = media.lens, lens.lowercased().contains("front") { bits.insert(.init(.selfies)) }
        if let width = media.width, let height = media.height, height > 0, Double(width) > 2.5 * Double(height) {
            bits.insert(.init(.panoramas))
        }
        if burstNumber(in: fileName) != nil { bits.insert(.init(.bursts)) }
        if let frames = media.frameCount, frames > 1, animatedTypes.contains(media.mimeType) { bits.insert(.init(.animated)) }
        return bits
    }

    static let animatedTypes: Set<String> = ["image/gif", "image/webp", "image/png", "image/apng", "image/vnd.mozilla.apng"]

    /// Screenshot names of GNOME ("Screenshot from 2024-03-12 09-41-00.png"), KDE Spectacle
    /// ("Screenshot_20240312_094100.png"), Android ("Screenshot_20240312-094100.png") and macOS
    /// ("Screenshot 2024-03-12 at 09.41.00.png", before 10.14 "Screen Shot …"). PNG only.
    static func isScreenshot(fileName: [UInt8], mimeType: String) -> Bool {
        guard mimeType == "image/png" else { return false }
        let name = String(decoding: fileName, as: UTF8.self)
        return name.hasPrefix("Screenshot") || name.hasPrefix("Screen Shot") || name.hasPrefix("screenshot")
    }

    /// The frame number of "IMG_20240312_094100_BURST002.jpg" and the like.
    static func burstNumber(in fileName: [UInt8]) -> Int? {
        let marker = Array("_BURST".utf8)
        guard fileName.count >= marker.count + 3 else { return nil }
        for start in 0...(fileName.count - marker.count - 3) where fileName[start..<(start + marker.count)].elementsEqual(marker) {
            let digits = fileName[(start + marker.count)..<(start + marker.count + 3)]
            if digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            }
        }
        return nil
    }

    /// Frames of one burst share folder, capture second and camera.
    static func burstKey(folderID: Int64, media: MediaFile) -> String {
        let second = media.captureDate.millisecondsSinceEpoch.floorDivided(by: 1000)
        return "\(folderID)|\(second)|\(media.make ?? "")|\(media.model ?? "")"
    }

    /// The file name without its last extension: what pairs IMG_0001.JPG with IMG_0001.MOV.
    static func stem(of fileName: [UInt8]) -> [UInt8] {
        guard let dot = fileName.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return fileName }
        return Array(fileName[..<dot])
    }
}
