// SPDX-License-Identifier: LGPL-2.1-or-later
import CV4L
import Glibc

/// Turns a camera's frames (YUYV, NV12, MJPEG, Bayer…) into RGB with libv4lconvert, the library
/// V4L2 viewers use. One converter per stream; not thread-safe (the camera's worker owns it).
public final class FrameConverter {
    private let data: OpaquePointer
    private var source = v4l2_format()
    private var destination = v4l2_format()
    public let format: StreamFormat

    /// `descriptor` is the device's, when there is one: libv4lconvert reads some cameras' quirks
    /// from it. -1 converts without a device (tests, files).
    public init(format: StreamFormat, descriptor: Int32 = -1) throws(CameraFailure) {
        if let missing = pp_v4lconvert_missing() { throw CameraFailure.failed(String(cString: missing)) }
        guard let data = descriptor >= 0 ? pp_v4lconvert_create(descriptor) : pp_v4lconvert_create_without_device() else {
            throw CameraFailure.failed("Cannot start the picture conversion")
        }
        self.data = data
        self.format = format
        source.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        source.fmt.pix.width = UInt32(format.width)
        source.fmt.pix.height = UInt32(format.height)
        source.fmt.pix.pixelformat = format.format.rawValue
        source.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        source.fmt.pix.bytesperline = UInt32(format.bytesPerLine)
        source.fmt.pix.sizeimage = UInt32(format.imageSize)
        destination = source
        destination.fmt.pix.pixelformat = FourCC.rgb24.rawValue
        destination.fmt.pix.bytesperline = UInt32(format.width * 3)
        destination.fmt.pix.sizeimage = UInt32(format.width * format.height * 3)
    }

    deinit { pp_v4lconvert_destroy(data) }

    /// The frame in RGB, or nil when these bytes could not be converted (a damaged JPEG frame):
    /// the stream skips such a frame rather than showing garbage.
    public func convert(_ bytes: UnsafeRawBufferPointer, sequence: Int = 0) -> Frame? {
        guard let base = bytes.baseAddress else { return nil }
        let pixels = PixelBuffer(width: format.width, height: format.height)
        let written = pp_v4lconvert_convert(data, &source, &destination,
                                         UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)), Int32(bytes.count),
                                         pixels.bytes, Int32(pixels.count))
        guard written >= Int32(pixels.count) else { return nil }
        return Frame(pixels: pixels, sequence: sequence)
    }

    public var lastError: String { String(cString: pp_v4lconvert_get_error_message(data)) }
}

/// Tightly packed RGB (3 bytes a pixel) in memory of its own, handed to GTK without a copy.
public final class PixelBuffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let bytes: UnsafeMutablePointer<UInt8>
    public var count: Int { width * height * 3 }
    public var stride: Int { width * 3 }

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        bytes = .allocate(capacity: max(1, width * height * 3))
    }

    deinit { bytes.deallocate() }

    /// Flips the picture left to right, in place: what a webcam preview shows (moving left
    /// moves left on screen). Done on the camera's worker rather than as a CSS transform on the
    /// picture, which GTK 4.8's cairo renderer drew very slowly. (A 32-bit BGRA copy made here
    /// instead, to spare the GTK thread cairo's conversion, measured slower in the VM: 9 against
    /// 13-18 frames a second shown.)
    public func mirrorHorizontally() {
        for y in 0..<height {
            var left = bytes + y * stride, right = bytes + y * stride + (width - 1) * 3
            while left < right {
                let r = left[0], g = left[1], b = left[2]
                left[0] = right[0]; left[1] = right[1]; left[2] = right[2]
                right[0] = r; right[1] = g; right[2] = b
                left += 3
                right -= 3
            }
        }
    }

    /// The picture shrunk by a whole `factor` (each output pixel the mean of a factor x factor
    /// block): a small view draws it 1:1 instead of making the GTK thread scale every frame.
    public func shrunk(by factor: Int) -> PixelBuffer {
        let result = PixelBuffer(width: width / factor, height: height / factor)
        let area = UInt32(factor * factor)
        for y in 0..<result.height {
            for x in 0..<result.width {
                var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
                for dy in 0..<factor {
                    var from = bytes + (y * factor + dy) * stride + x * factor * 3
                    for _ in 0..<factor {
                        r += UInt32(from[0]); g += UInt32(from[1]); b += UInt32(from[2])
                        from += 3
                    }
                }
                let to = result.bytes + y * result.stride + x * 3
                to[0] = UInt8(r / area); to[1] = UInt8(g / area); to[2] = UInt8(b / area)
            }
        }
        return result
    }

    /// A copy of the pixels.
    public func copy() -> PixelBuffer {
        let result = PixelBuffer(width: width, height: height)
        result.bytes.update(from: bytes, count: count)
        return result
    }

    /// The colour at (x, y).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let offset = y * stride + x * 3
        return (bytes[offset], bytes[offset + 1], bytes[offset + 2])
    }
}

/// One converted camera frame. Immutable once made, so it crosses to the GTK thread as is.
public struct Frame: Sendable {
    public let pixels: PixelBuffer
    /// The same picture shrunk for the smallest view (the camera cell), when that is at most
    /// half the frame's size; nil otherwise.
    public let small: PixelBuffer?
    /// The driver's frame counter: gaps are frames the driver dropped.
    public let sequence: Int

    public init(pixels: PixelBuffer, sequence: Int, small: PixelBuffer? = nil) {
        self.pixels = pixels
        self.sequence = sequence
        self.small = small
    }

    /// This frame with a picture shrunk for a view `width`x`height` pixels large (cropped to
    /// fill), when a whole factor of 2 or more fits.
    public func withSmall(covering width: Int, _ height: Int) -> Frame {
        let factor = min(pixels.width / max(1, width), pixels.height / max(1, height))
        guard factor >= 2 else { return self }
        return Frame(pixels: pixels, sequence: sequence, small: pixels.shrunk(by: factor))
    }

    public var width: Int { pixels.width }
    public var height: Int { pixels.height }
}
