// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// A camera streaming on a worker thread of its own: frames are read and converted there and
/// handed on as they come; what the camera is doing is reported as a `State`.
///
/// A stall (no frame for `stallTimeout` seconds) restarts the device once; a second stall before
/// a frame arrives is reported as `.failed(.stalled)`. Every other failure is reported as it is.
/// After `stop()` returns, the device is released and neither callback runs again.
public final class CameraStream: @unchecked Sendable {
    public enum State: Hashable, Sendable {
        case starting
        case live(StreamFormat)
        case failed(CameraFailure)
    }

    private let makeSource: @Sendable () -> FrameSource
    private let stallTimeout: Double
    private let onState: @Sendable (State) -> Void
    private let onFrame: @Sendable (Frame) -> Void
    private let worker = WorkerPool(name: "camera", threads: 1)
    private let lock = Lock()
    private var started = false

    /// - Parameters:
    ///   - makeSource: called on the worker, once per (re)start.
    ///   - onState: called on the worker whenever the state changes.
    ///   - onFrame: called on the worker for every frame; keep it short (hand the frame on).
    public init(stallTimeout: Double = 2, makeSource: @escaping @Sendable () -> FrameSource,
                onState: @escaping @Sendable (State) -> Void, onFrame: @escaping @Sendable (Frame) -> Void) {
        self.makeSource = makeSource
        self.stallTimeout = stallTimeout
        self.onState = onState
        self.onFrame = onFrame
    }

    deinit { worker.shutdown() }

    /// Starts streaming in the background; returns at once. A stream starts once.
    public func start() {
        let first = lock.withLock { () -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        _ = worker.submit { [self] in run() }
    }

    /// Stops the stream and waits (at most about 0.1 s) until the device is released.
    public func stop() {
        worker.shutdown()
    }

    private var isStopping: Bool { worker.isStopping }

    private func run() {
        onState(.starting)
        var restarted = false
        while !isStopping {
            let source = makeSource()
            defer { source.stop() }
            let format: StreamFormat
            do {
                format = try source.start()
            } catch {
                report(.failed(error))
                return
            }
            switch stream(from: source, format: format) {
            case .stopped:
                return
            case .failed(let failure):
                report(.failed(failure))
                return
            case .stalled(let afterFrames):
                // A restart that brought frames back earns the next stall a restart too.
                if restarted && !afterFrames {
                    report(.failed(.stalled(source.name)))
                    return
                }
                restarted = true
                // The frozen picture goes while the device restarts.
                report(.starting)
            }
        }
    }

    private enum Ending { case stopped, stalled(afterFrames: Bool), failed(CameraFailure) }

    private func stream(from source: FrameSource, format: StreamFormat) -> Ending {
        var lastFrame = monotonicSeconds()
        var live = false
        while !isStopping {
            let frame: Frame?
            do {
                frame = try source.nextFrame(timeout: min(0.1, stallTimeout / 2))
            } catch {
                return .failed(error)
            }
            if let frame {
                lastFrame = monotonicSeconds()
                if !live {
                    live = true
                    report(.live(format))
                }
                if isStopping { return .stopped }
                onFrame(frame)
            } else if monotonicSeconds() - lastFrame >= stallTimeout {
                return .stalled(afterFrames: live)
            }
        }
        return .stopped
    }

    /// States are not reported once stopping: after `stop()` nothing is said.
    private func report(_ state: State) {
        if !isStopping { onState(state) }
    }
}
