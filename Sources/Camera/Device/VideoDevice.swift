// SPDX-License-Identifier: LGPL-2.1-or-later
import CV4L
import Glibc
import Basics

/// One open V4L2 device node. It owns the file descriptor and, while streaming, the mmap'ed
/// buffers: both go when the object does, so a device is never left open or mapped.
///
/// Not thread-safe: a device is used by one thread at a time (the camera's worker).
final class VideoDevice {
    let path: FilePath
    private(set) var descriptor: Int32
    private var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
    private var streaming = false

    /// Opens `path` for capture without blocking (frames are waited for with `poll`).
    init(path: FilePath) throws(CameraFailure) {
        self.path = path
        let descriptor = path.withCString { open($0, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else { throw CameraFailure.opening(path, errno: errno) }
        self.descriptor = descriptor
    }

    deinit { close() }

    func close() {
        guard descriptor >= 0 else { return }
        stopStreaming()
        Glibc.close(descriptor)
        descriptor = -1
    }

    // MARK: What the device is

    struct Capabilities {
        var card: String
        var driver: String
        var busInfo: String
        /// The capabilities of this node (a UVC camera's metadata node says only META_CAPTURE).
        var deviceCapabilities: UInt32

        var canCaptureVideo: Bool {
            deviceCapabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0
                && deviceCapabilities & UInt32(V4L2_CAP_STREAMING) != 0
        }
    }

    func capabilities() throws(CameraFailure) -> Capabilities {
        var capability = v4l2_capability()
        try control(PP_VIDIOC_QUERYCAP, &capability, "query")
        // Older drivers fill only `capabilities`, for the whole device.
        let perNode = capability.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0
        return Capabilities(card: fixedString(capability.card), driver: fixedString(capability.driver),
                            busInfo: fixedString(capability.bus_info),
                            deviceCapabilities: perNode ? capability.device_caps : capability.capabilities)
    }

    /// Every pixel format with its discrete sizes and their frame rates. Stepwise and continuous
    /// sizes (rare in webcams) are offered at the common sizes inside their range.
    func formats() -> [PixelFormatOffer] {
        var offers: [PixelFormatOffer] = []
        var index: UInt32 = 0
        while true {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard pp_ioctl(descriptor, PP_VIDIOC_ENUM_FMT, &description) == 0 else { break }
            let format = FourCC(description.pixelformat)
            offers.append(PixelFormatOffer(format: format, name: fixedString(description.description),
                                           sizes: sizes(of: format)))
            index += 1
        }
        return offers
    }

    private func sizes(of format: FourCC) -> [SizeOffer] {
        var result: [SizeOffer] = []
        var size = v4l2_frmsizeenum()
        size.pixel_format = format.rawValue
        size.index = 0
        guard pp_ioctl(descriptor, PP_VIDIOC_ENUM_FRAMESIZES, &size) == 0 else { return [] }
        if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
            var index: UInt32 = 0
            while true {
                size.index = index
                guard pp_ioctl(descriptor, PP_VIDIOC_ENUM_FRAMESIZES, &size) == 0 else { break }
                let width = Int(size.discrete.width), height = Int(size.discrete.height)
                result.append(SizeOffer(width: width, height: height,
                                        frameRates: frameRates(format: format, width: width, height: height)))
                index += 1
            }
        } else {
            let range = size.stepwise
            for (width, height) in SizeOffer.commonSizes
            where width >= Int(range.min_width) && width <= Int(range.max_width)
                && height >= Int(range.min_height) && height <= Int(range.max_height) {
                result.append(SizeOffer(width: width, height: height,
                                        frameRates: frameRates(format: format, width: width, height: height)))
            }
        }
        return result
    }

    private func frameRates(format: FourCC, width: Int, height: Int) -> [FrameRate] {
        var rates: [FrameRate] = []
        var interval = v4l2_frmivalenum()
        interval.pixel_format = format.rawValue
        interval.width = UInt32(width)
        interval.height = UInt32(height)
        var index: UInt32 = 0
        while true {
            interval.index = index
            guard pp_ioctl(descriptor, PP_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0 else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                // A frame interval of n/d seconds is d/n frames per second.
                rates.append(FrameRate(frames: Int(interval.discrete.denominator), seconds: Int(interval.discrete.numerator)))
            } else {
                // Stepwise: the shortest interval is the highest rate.
                let fastest = interval.stepwise.min
                rates.append(FrameRate(frames: Int(fastest.denominator), seconds: Int(fastest.numerator)))
                break
            }
            index += 1
        }
        return rates.filter { $0.seconds > 0 && $0.frames > 0 }
    }

    // MARK: Negotiating

    /// Sets the format and then the rate, and returns what the driver actually chose: drivers
    /// adjust both to what they can do.
    func configure(_ choice: FormatChoice) throws(CameraFailure) -> StreamFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.width = UInt32(choice.width)
        format.fmt.pix.height = UInt32(choice.height)
        format.fmt.pix.pixelformat = choice.format.rawValue
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try control(PP_VIDIOC_S_FMT, &format, "set the format")

        var parameters = v4l2_streamparm()
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        var rate = FrameRate(frames: 0, seconds: 1)
        if let wanted = choice.frameRate {
            parameters.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(wanted.seconds), denominator: UInt32(wanted.frames))
            // Some drivers have no rate control (S_PARM fails); they stream at their own rate.
            if pp_ioctl(descriptor, PP_VIDIOC_S_PARM, &parameters) != 0, errno == EBUSY {
                throw CameraFailure.fromErrno(errno, path: path, doing: "set the frame rate")
            }
        }
        if pp_ioctl(descriptor, PP_VIDIOC_G_PARM, &parameters) == 0 {
            let perFrame = parameters.parm.capture.timeperframe
            if perFrame.numerator > 0 { rate = FrameRate(frames: Int(perFrame.denominator), seconds: Int(perFrame.numerator)) }
        }
        let pix = format.fmt.pix
        return StreamFormat(format: FourCC(pix.pixelformat), width: Int(pix.width), height: Int(pix.height),
                            bytesPerLine: Int(pix.bytesperline), imageSize: Int(pix.sizeimage), frameRate: rate)
    }

    // MARK: Streaming

    /// Maps `count` driver buffers, queues them all and starts the stream.
    func startStreaming(bufferCount count: Int = 4) throws(CameraFailure) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try control(PP_VIDIOC_REQBUFS, &request, "allocate buffers")
        guard request.count > 0 else { throw CameraFailure.failed("\(path): the driver gave no buffers") }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            try control(PP_VIDIOC_QUERYBUF, &buffer, "map buffers")
            guard let start = mmap(nil, Int(buffer.length), PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(buffer.m.offset)),
                  start != MAP_FAILED else {
                throw CameraFailure.fromErrno(errno, path: path, doing: "map buffers")
            }
            buffers.append((start, Int(buffer.length)))
            try control(PP_VIDIOC_QBUF, &buffer, "queue buffers")
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try control(PP_VIDIOC_STREAMON, &type, "start streaming")
        streaming = true
    }

    /// Waits up to `milliseconds` for a frame and hands its bytes to `body` while the buffer is
    /// dequeued; the buffer goes back to the driver afterwards. Returns false when none came.
    func withNextFrame(timeout milliseconds: Int32, _ body: (UnsafeRawBufferPointer, _ sequence: Int) -> Void) throws(CameraFailure) -> Bool {
        var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiting, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { return false }
            throw CameraFailure.fromErrno(errno, path: path, doing: "wait for a frame")
        }
        if ready == 0 { return false }
        // A device that went away reports POLLERR (and ENODEV on the next call).
        if waiting.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && waiting.revents & Int16(POLLIN) == 0 {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            if pp_ioctl(descriptor, PP_VIDIOC_DQBUF, &buffer) != 0, errno != EAGAIN {
                throw CameraFailure.fromErrno(errno, path: path, doing: "read a frame")
            }
            throw CameraFailure.unplugged(path.displayString)
        }
        var buffer = v4l2_buffer()
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        if pp_ioctl(descriptor, PP_VIDIOC_DQBUF, &buffer) != 0 {
            if errno == EAGAIN { return false }
            throw CameraFailure.fromErrno(errno, path: path, doing: "read a frame")
        }
        let mapped = buffers[Int(buffer.index)]
        // A frame the driver marks as damaged is skipped, not shown.
        if buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0 {
            body(UnsafeRawBufferPointer(start: mapped.start, count: min(Int(buffer.bytesused), mapped.length)), Int(buffer.sequence))
        }
        try control(PP_VIDIOC_QBUF, &buffer, "queue buffers")
        return buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) == 0
    }

    func stopStreaming() {
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = pp_ioctl(descriptor, PP_VIDIOC_STREAMOFF, &type)
            streaming = false
        }
        for buffer in buffers { munmap(buffer.start, buffer.length) }
        if !buffers.isEmpty {
            buffers = []
            // Release the driver's buffers so that another program (or the next format) can have them.
            var request = v4l2_requestbuffers()
            request.count = 0
            request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            request.memory = V4L2_MEMORY_MMAP.rawValue
            _ = pp_ioctl(descriptor, PP_VIDIOC_REQBUFS, &request)
        }
    }

    private func control<T>(_ request: UInt, _ argument: inout T, _ doing: String) throws(CameraFailure) {
        guard pp_ioctl(descriptor, request, &argument) == 0 else {
            throw CameraFailure.fromErrno(errno, path: path, doing: doing)
        }
    }
}

/// A C char array (imported as a tuple) read up to its first NUL.
func fixedString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { bytes in
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
