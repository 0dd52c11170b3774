// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import Glibc
import PhotoLibrary

/// A camera that does what the test scripts: fail to start, send frames, go quiet, go away.
/// Shared between the test thread and the stream's worker, so everything is under a lock.
final class FakeFrameSource: FrameSource, @unchecked Sendable {
    enum Step {
        case frame
        /// No frame for this many seconds.
        case silence(Double)
        case fail(CameraFailure)
    }

    let name = "Fake Camera"
    private let lock = Lock()
    private let startFailure: CameraFailure?
    private var steps: [Step]
    private var started = false
    private(set) var startCount = 0
    private(set) var stopCount = 0
    private var sequence = 0
    let format = StreamFormat(format: .rgb24, width: 4, height: 2, bytesPerLine: 12, imageSize: 24,
                              frameRate: FrameRate(frames: 30, seconds: 1))

    /// `steps` play in order; when they run out, frames keep coming.
    init(startFailure: CameraFailure? = nil, steps: [Step] = []) {
        self.startFailure = startFailure
        self.steps = steps
    }

    var isStarted: Bool { lock.withLock { started } }
    var starts: Int { lock.withLock { startCount } }
    var stops: Int { lock.withLock { stopCount } }

    func start() throws(CameraFailure) -> StreamFormat {
        let failure = lock.withLock { () -> CameraFailure? in
            startCount += 1
            if let startFailure { return startFailure }
            started = true
            return nil
        }
        if let failure { throw failure }
        return format
    }

    func nextFrame(timeout: Double) throws(CameraFailure) -> Frame? {
        let step = lock.withLock { () -> Step in
            guard !steps.isEmpty else { return .frame }
            if case .silence(let left) = steps[0] {
                // Silence is used up in `timeout` slices, as a real poll would wait.
                if left > timeout { steps[0] = .silence(left - timeout) } else { steps.removeFirst() }
                return .silence(min(left, timeout))
            }
            return steps.removeFirst()
        }
        switch step {
        case .frame:
            usleep(5_000)
            let pixels = PixelBuffer(width: 4, height: 2)
            for index in 0..<pixels.count { pixels.bytes[index] = UInt8(index) }
            return lock.withLock {
                sequence += 1
                return Frame(pixels: pixels, sequence: sequence)
            }
        case .silence(let seconds):
            usleep(UInt32(seconds * 1_000_000))
            return nil
        case .fail(let failure):
            throw failure
        }
    }

    func stop() {
        lock.withLock {
            if started { stopCount += 1 }
            started = false
        }
    }
}

/// What a stream reported, collected from its worker.
final class StreamRecorder: @unchecked Sendable {
    private let lock = Lock()
    private var recordedStates: [CameraStream.State] = []
    private var recordedFrames = 0

    var states: [CameraStream.State] { lock.withLock { recordedStates } }
    var frames: Int { lock.withLock { recordedFrames } }

    func record(_ state: CameraStream.State) { lock.withLock { recordedStates.append(state) } }
    func recordFrame() { lock.withLock { recordedFrames += 1 } }

    /// Waits up to `seconds` for `condition`.
    func wait(_ seconds: Double = 5, until condition: (StreamRecorder) -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if condition(self) { return true }
            usleep(5_000)
        }
        return condition(self)
    }
}
