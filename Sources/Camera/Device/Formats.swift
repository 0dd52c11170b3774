// SPDX-License-Identifier: LGPL-2.1-or-later
/// A V4L2 pixel format code: four ASCII characters ("YUYV", "MJPG") packed little-endian.
public struct FourCC: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ code: StaticString) {
        precondition(code.utf8CodeUnitCount == 4, "a fourcc has four characters")
        let bytes = UnsafeBufferPointer(start: code.utf8Start, count: 4)
        rawValue = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public var description: String {
        // The top bit marks a big-endian variant of the format ("XR15-BE").
        let bigEndian = rawValue & 0x8000_0000 != 0
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: (rawValue & 0x7FFF_FFFF) >> (8 * $0)) }
        return String(decoding: bytes, as: UTF8.self).trimmingTrailingSpaces + (bigEndian ? "-BE" : "")
    }

    public static let yuyv = FourCC("YUYV")
    public static let uyvy = FourCC("UYVY")
    public static let mjpeg = FourCC("MJPG")
    public static let jpeg = FourCC("JPEG")
    public static let nv12 = FourCC("NV12")
    public static let yuv420 = FourCC("YU12")
    public static let rgb24 = FourCC("RGB3")
    public static let bgr24 = FourCC("BGR3")
}

private extension String {
    var trimmingTrailingSpaces: String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}

/// A frame rate as a fraction: `frames` per `seconds` (vivid's 12.5 fps is 25/2).
public struct FrameRate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var frames: Int
    public var seconds: Int

    public init(frames: Int, seconds: Int) {
        self.frames = frames
        self.seconds = seconds
    }

    public var perSecond: Double { seconds == 0 ? 0 : Double(frames) / Double(seconds) }

    public static func < (lhs: FrameRate, rhs: FrameRate) -> Bool { lhs.frames * rhs.seconds < rhs.frames * lhs.seconds }
    // 25/1 and 50/2 are the same rate.
    public static func == (lhs: FrameRate, rhs: FrameRate) -> Bool { lhs.frames * rhs.seconds == rhs.frames * lhs.seconds }
    public func hash(into hasher: inout Hasher) { hasher.combine(perSecond) }

    public var description: String {
        let value = perSecond
        return value == value.rounded() ? "\(Int(value)) fps" : "\((value * 10).rounded() / 10) fps"
    }
}

/// One size a format is offered at, with the rates offered there (fastest anywhere in the list).
public struct SizeOffer: Hashable, Sendable {
    public var width: Int
    public var height: Int
    public var frameRates: [FrameRate]

    public init(width: Int, height: Int, frameRates: [FrameRate]) {
        self.width = width
        self.height = height
        self.frameRates = frameRates
    }

    public var fastest: FrameRate? { frameRates.max() }

    /// Sizes tried inside a stepwise range (webcam and display sizes, small to large).
    static let commonSizes = [(160, 120), (320, 180), (320, 240), (640, 360), (640, 480), (800, 600),
                              (960, 540), (1024, 768), (1280, 720), (1280, 960), (1600, 1200),
                              (1920, 1080), (2560, 1440), (3840, 2160)]
}

/// A pixel format a device offers, with its sizes.
public struct PixelFormatOffer: Hashable, Sendable {
    public var format: FourCC
    public var name: String
    public var sizes: [SizeOffer]

    public init(format: FourCC, name: String, sizes: [SizeOffer]) {
        self.format = format
        self.name = name
        self.sizes = sizes
    }
}

/// What to ask the device for.
public struct FormatChoice: Hashable, Sendable {
    public var format: FourCC
    public var width: Int
    public var height: Int
    public var frameRate: FrameRate?

    public init(format: FourCC, width: Int, height: Int, frameRate: FrameRate?) {
        self.format = format
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }
}

/// What the device streams after negotiation (drivers may adjust the request).
public struct StreamFormat: Hashable, Sendable, CustomStringConvertible {
    public var format: FourCC
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var imageSize: Int
    public var frameRate: FrameRate

    public init(format: FourCC, width: Int, height: Int, bytesPerLine: Int, imageSize: Int, frameRate: FrameRate) {
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.imageSize = imageSize
        self.frameRate = frameRate
    }

    public var description: String { "\(width)x\(height) \(format) at \(frameRate)" }
}
