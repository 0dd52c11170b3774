// SPDX-License-Identifier: LGPL-2.1-or-later
/// Which of a device's formats to stream. Pure, so that it is tested without a device.
public enum FormatPolicy {
    /// Source formats libv4lconvert turns into RGB, cheapest first: when two formats give the same
    /// size at the same rate, the earlier one wins (packed YUV costs least, JPEG must be decoded).
    public static let convertible: [FourCC] = [
        .yuyv, FourCC("YVYU"), .uyvy, .nv12, FourCC("NV21"), FourCC("NV16"), FourCC("NV61"),
        .yuv420, FourCC("YV12"), .rgb24, .bgr24, FourCC("RGBP"), FourCC("GREY"),
        FourCC("BA81"), FourCC("GBRG"), FourCC("GRBG"), FourCC("RGGB"),
        .mjpeg, .jpeg,
    ]

    /// The size nearest to `width`x`height` that still covers it (the preview is cropped to fill,
    /// so a smaller frame would be scaled up), or the largest when none covers it; then the
    /// highest rate offered at that size, over every convertible format.
    public static func preview(from offers: [PixelFormatOffer], covering width: Int, _ height: Int) -> FormatChoice? {
        let candidates = usableSizes(offers)
        guard !candidates.isEmpty else { return nil }
        let covering = candidates.filter { $0.size.width >= width && $0.size.height >= height }
        let area: (SizeOffer) -> Int = { $0.width * $0.height }
        let targetArea: Int
        if let smallest = covering.map({ area($0.size) }).min() {
            targetArea = smallest
        } else {
            targetArea = candidates.map { area($0.size) }.max()!
        }
        return fastest(candidates.filter { area($0.size) == targetArea })
    }

    /// The largest size, at its highest rate: what a still photo is taken at.
    public static func still(from offers: [PixelFormatOffer]) -> FormatChoice? {
        let candidates = usableSizes(offers)
        guard let largest = candidates.map({ $0.size.width * $0.size.height }).max() else { return nil }
        return fastest(candidates.filter { $0.size.width * $0.size.height == largest })
    }

    private static func usableSizes(_ offers: [PixelFormatOffer]) -> [(format: FourCC, size: SizeOffer)] {
        offers.filter { convertible.contains($0.format) }
            .flatMap { offer in offer.sizes.map { (offer.format, $0) } }
    }

    /// Highest rate first, then the cheaper format, then the wider frame.
    private static func fastest(_ candidates: [(format: FourCC, size: SizeOffer)]) -> FormatChoice? {
        let rank: (FourCC) -> Int = { convertible.firstIndex(of: $0) ?? convertible.count }
        let best = candidates.min { a, b in
            let rateA = a.size.fastest ?? FrameRate(frames: 0, seconds: 1)
            let rateB = b.size.fastest ?? FrameRate(frames: 0, seconds: 1)
            if rateA != rateB { return rateA > rateB }
            if rank(a.format) != rank(b.format) { return rank(a.format) < rank(b.format) }
            return a.size.width > b.size.width
        }
        return best.map { FormatChoice(format: $0.format, width: $0.size.width, height: $0.size.height, frameRate: $0.size.fastest) }
    }
}
