// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// Where a camera stream's frames come from: a V4L2 device, or a fake one in tests. Used by one
/// thread at a time (the stream's worker), which also makes it.
public protocol FrameSource: AnyObject {
    /// The device's name for messages ("Integrated Camera", "vivid").
    var name: String { get }
    /// Opens the device and starts streaming; what it streams.
    func start() throws(CameraFailure) -> StreamFormat
    /// The next frame, waiting up to `timeout` seconds; nil when none came in time.
    func nextFrame(timeout: Double) throws(CameraFailure) -> Frame?
    /// Stops streaming and lets the device go. Safe to call twice, and after a failed start.
    func stop()
}

/// What a stream is for, which decides the size it asks for.
public enum StreamPurpose: Hashable, Sendable {
    /// A live picture shown `width`x`height` pixels large, cropped to fill.
    case preview(width: Int, height: Int)
    /// The largest pictures the camera takes.
    case still
}

/// A V4L2 capture device as a frame source.
public final class V4L2FrameSource: FrameSource {
    public let path: FilePath
    public let purpose: StreamPurpose
    public private(set) var name: String
    private var device: VideoDevice?
    private var converter: FrameConverter?

    public init(path: FilePath, purpose: StreamPurpose) {
        self.path = path
        self.purpose = purpose
        name = path.displayString
    }

    deinit { stop() }

    public func start() throws(CameraFailure) -> StreamFormat {
        stop()
        let device = try VideoDevice(path: path)
        self.device = device
        do throws(CameraFailure) {
            let capabilities = try device.capabilities()
            if !capabilities.card.isEmpty { name = capabilities.card }
            guard capabilities.canCaptureVideo else { throw CameraFailure.noUsableFormat(name) }
            let offers = device.formats()
            let choice: FormatChoice?
            switch purpose {
            case .preview(let width, let height): choice = FormatPolicy.preview(from: offers, covering: width, height)
            case .still: choice = FormatPolicy.still(from: offers)
            }
            guard let choice else { throw CameraFailure.noUsableFormat(name) }
            let format = try device.configure(choice)
            guard FormatPolicy.convertible.contains(format.format) else { throw CameraFailure.noUsableFormat(name) }
            converter = try FrameConverter(format: format, descriptor: device.descriptor)
            try device.startStreaming()
            return format
        } catch {
            stop()
            throw error.naming(name)
        }
    }

    public func nextFrame(timeout: Double) throws(CameraFailure) -> Frame? {
        guard let device, let converter else { return nil }
        var frame: Frame?
        do throws(CameraFailure) {
            _ = try device.withNextFrame(timeout: Int32(timeout * 1000)) { bytes, sequence in
                frame = converter.convert(bytes, sequence: sequence)
            }
        } catch {
            throw error.naming(name)
        }
        return frame
    }

    public func stop() {
        converter = nil
        device?.close()
        device = nil
    }
}
