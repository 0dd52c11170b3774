// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import Foundation
import Glibc
import PhotoLibrary

/// A camera that sends small grey frames (50 a second) until told to fail; tells whether it runs.
public final class FakeCamera: FrameSource, @unchecked Sendable {
    public let name = "Fake Camera"
    private let lock = NSLock()
    private var running = false
    private var failure: CameraFailure?
    private var starts = 0

    public init() {}

    public var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }
    public var startCount: Int { lock.lock(); defer { lock.unlock() }; return starts }
    public func fail(with failure: CameraFailure) { lock.lock(); self.failure = failure; lock.unlock() }
    public func heal() { lock.lock(); failure = nil; lock.unlock() }

    public func start() throws(CameraFailure) -> StreamFormat {
        lock.lock(); defer { lock.unlock() }
        starts += 1
        running = true
        return StreamFormat(format: .rgb24, width: 320, height: 240, bytesPerLine: 960, imageSize: 230400, frameRate: FrameRate(frames: 50, seconds: 1))
    }

    public func nextFrame(timeout: Double) throws(CameraFailure) -> Frame? {
        lock.lock()
        let failure = self.failure
        lock.unlock()
        if let failure { throw failure }
        usleep(20_000)
        let pixels = PixelBuffer(width: 320, height: 240)
        for index in 0..<pixels.count { pixels.bytes[index] = 128 }
        return Frame(pixels: pixels, sequence: 0)
    }

    public func stop() { lock.lock(); running = false; lock.unlock() }
}

/// The cameras a system has, changed by a test between looks.
public final class FakeDevices: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [CameraInfo]

    public init(_ list: [CameraInfo]) { self.list = list }

    public var cameras: [CameraInfo] {
        get { lock.lock(); defer { lock.unlock() }; return list }
        set { lock.lock(); list = newValue; lock.unlock() }
    }

    /// One webcam, as discovery would describe it.
    public static let webcam = CameraInfo(path: FilePath("/dev/video0"), name: "Fake Camera", driver: "fake", busInfo: "usb-1",
                                          formats: [PixelFormatOffer(format: .rgb24, name: "RGB", sizes: [SizeOffer(width: 8, height: 6, frameRates: [FrameRate(frames: 50, seconds: 1)])])],
                                          problem: nil)
}
