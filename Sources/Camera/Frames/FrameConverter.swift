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
    /// The driver's frame counter: gaps are frames the driver dropped.
    public let sequence: Int

    public init(pixels: PixelBuffer, sequence: Int) {
        self.pixels = pixels
        self.sequence = sequence
    }

    public var width: Int { pixels.width }
    public var height: Int { pixels.height }
}
