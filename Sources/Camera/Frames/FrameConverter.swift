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
        guard let data = descriptor >= 0 ? v4lconvert_create(descriptor) : pp_v4lconvert_create_without_device() else {
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

    deinit { v4lconvert_destroy(data) }

    /// The frame in RGB, or nil when these bytes could not be converted (a damaged JPEG frame):
    /// the stream skips such a frame rather than showing garbage.
    public func convert(_ bytes: UnsafeRawBufferPointer, sequence: Int = 0) -> Frame? {
        guard let base = bytes.baseAddress else { return nil }
        let pixels = PixelBuffer(width: format.width, height: format.height)
        let written = v4lconvert_convert(data, &source, &destination,
                                         UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self)), Int32(bytes.count),
                                         pixels.bytes, Int32(pixels.count))
        guard written >= Int32(pixels.count) else { return nil }
        return Frame(pixels: pixels, sequence: sequence)
    }

    public var lastError: String { String(cString: v4lconvert_get_error_message(data)) }
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
    /// What the camera sees, in RGB: what a capture saves.
    public let pixels: PixelBuffer
    /// The same picture as the screen shows it, when made (see DisplayPixels).
    public let display: DisplayPixels?
    /// The driver's frame counter: gaps are frames the driver dropped.
    public let sequence: Int

    public init(pixels: PixelBuffer, sequence: Int, display: DisplayPixels? = nil) {
        self.pixels = pixels
        self.sequence = sequence
        self.display = display
    }

    /// This frame with its picture for the screen made (on the calling thread: a worker's).
    public func preparedForDisplay() -> Frame {
        Frame(pixels: pixels, sequence: sequence, display: DisplayPixels(mirroring: pixels))
    }

    public var width: Int { pixels.width }
    public var height: Int { pixels.height }
}

/// A frame as the preview shows it: mirrored (as every webcam app shows it: moving left moves
/// left), in the 32-bit BGRA order cairo draws from, so that the GTK thread neither converts nor
/// flips anything (GTK 4.8's cairo renderer would convert RGB on every frame, and a CSS mirror
/// transform made it draw very slowly). Made on the camera's worker, in one pass.
public final class DisplayPixels: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let bytes: UnsafeMutablePointer<UInt8>
    public var stride: Int { width * 4 }
    public var count: Int { width * height * 4 }

    public init(mirroring source: PixelBuffer) {
        width = source.width
        height = source.height
        bytes = .allocate(capacity: max(1, source.width * source.height * 4))
        for y in 0..<height {
            var from = source.bytes + y * source.stride + (width - 1) * 3
            var to = bytes + y * width * 4
            for _ in 0..<width {
                to[0] = from[2]; to[1] = from[1]; to[2] = from[0]; to[3] = 255
                to += 4
                from -= 3
            }
        }
    }

    deinit { bytes.deallocate() }

    /// The colour at (x, y) as (red, green, blue).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let offset = y * stride + x * 4
        return (bytes[offset + 2], bytes[offset + 1], bytes[offset])
    }
}
