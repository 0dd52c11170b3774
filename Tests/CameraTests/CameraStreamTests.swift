// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import PhotoLibrary
import XCTest

/// The camera's states, driven by a fake device behind the same protocol as V4L2's.
final class CameraStreamTests: XCTestCase {
    private func stream(_ sources: [FakeFrameSource], stallTimeout: Double = 0.3, recorder: StreamRecorder) -> (CameraStream, () -> Int) {
        final class Sources: @unchecked Sendable {
            let lock = Lock()
            var list: [FakeFrameSource]
            var made = 0
            init(_ list: [FakeFrameSource]) { self.list = list }
        }
        let shared = Sources(sources)
        let stream = CameraStream(stallTimeout: stallTimeout, makeSource: {
            shared.lock.withLock {
                defer { shared.made += 1 }
                return shared.list[min(shared.made, shared.list.count - 1)]
            }
        }, onState: { recorder.record($0) }, onFrame: { _ in recorder.recordFrame() })
        return (stream, { shared.lock.withLock { shared.made } })
    }

    func testFramesFlowAndTheStateIsLive() {
        let source = FakeFrameSource()
        let recorder = StreamRecorder()
        let (camera, _) = stream([source], recorder: recorder)
        camera.start()
        XCTAssertTrue(recorder.wait { $0.frames >= 10 })
        camera.stop()
        XCTAssertEqual(recorder.states, [.starting, .live(source.format)])
        XCTAssertFalse(source.isStarted, "the device is released when stop returns")
    }

    func testAStartFailureIsReportedAsItIs() {
        for failure in [CameraFailure.busy("Fake Camera"), .permissionDenied("/dev/video0"), .noUsableFormat("Fake Camera"), .noCamera] {
            let recorder = StreamRecorder()
            let (camera, _) = stream([FakeFrameSource(startFailure: failure)], recorder: recorder)
            camera.start()
            XCTAssertTrue(recorder.wait { $0.states.count == 2 })
            camera.stop()
            XCTAssertEqual(recorder.states, [.starting, .failed(failure)])
            XCTAssertEqual(recorder.frames, 0)
        }
    }

    func testAStallRestartsOnceThenSaysStalled() {
        // Three frames, then nothing ever again, also after the restart.
        let first = FakeFrameSource(steps: [.frame, .frame, .frame, .silence(100)])
        let second = FakeFrameSource(steps: [.silence(100)])
        let recorder = StreamRecorder()
        let (camera, made) = stream([first, second], recorder: recorder)
        camera.start()
        XCTAssertTrue(recorder.wait { $0.states.last == .failed(.stalled("Fake Camera")) })
        camera.stop()
        XCTAssertEqual(made(), 2, "one restart")
        XCTAssertEqual(recorder.states, [.starting, .live(first.format), .starting, .failed(.stalled("Fake Camera"))])
        XCTAssertEqual(first.stops, 1)
        XCTAssertEqual(second.stops, 1)
    }

    func testAStallThatARestartCuresGoesOnStreaming() {
        let first = FakeFrameSource(steps: [.frame, .silence(100)])
        let second = FakeFrameSource()
        let recorder = StreamRecorder()
        let (camera, made) = stream([first, second], recorder: recorder)
        camera.start()
        XCTAssertTrue(recorder.wait { $0.frames >= 20 })
        camera.stop()
        XCTAssertEqual(made(), 2)
        XCTAssertEqual(recorder.states, [.starting, .live(first.format), .starting, .live(second.format)])
    }

    func testUnpluggedMidStreamIsReportedAndTheDeviceLetGo() {
        let source = FakeFrameSource(steps: [.frame, .frame, .fail(.unplugged("Fake Camera"))])
        let recorder = StreamRecorder()
        let (camera, made) = stream([source], recorder: recorder)
        camera.start()
        XCTAssertTrue(recorder.wait { $0.states.count == 3 })
        usleep(100_000)
        camera.stop()
        XCTAssertEqual(recorder.states, [.starting, .live(source.format), .failed(.unplugged("Fake Camera"))])
        XCTAssertEqual(made(), 1, "an unplugged camera is not restarted")
        XCTAssertFalse(source.isStarted)
        XCTAssertEqual(recorder.frames, 2)
    }

    func testNothingIsReportedAfterStopReturns() {
        let source = FakeFrameSource()
        let recorder = StreamRecorder()
        let (camera, _) = stream([source], recorder: recorder)
        camera.start()
        XCTAssertTrue(recorder.wait { $0.frames >= 3 })
        camera.stop()
        let frames = recorder.frames, states = recorder.states
        usleep(200_000)
        XCTAssertEqual(recorder.frames, frames)
        XCTAssertEqual(recorder.states, states)
        XCTAssertFalse(source.isStarted)
    }

    func testTheMailboxKeepsOnlyTheNewestFrame() {
        let mailbox = FrameMailbox()
        func frame(_ sequence: Int) -> Frame { Frame(pixels: PixelBuffer(width: 1, height: 1), sequence: sequence) }
        XCTAssertTrue(mailbox.put(frame(1)), "an empty slot asks the taker to come")
        XCTAssertFalse(mailbox.put(frame(2)), "a full slot does not ask again")
        XCTAssertFalse(mailbox.put(frame(3)))
        XCTAssertEqual(mailbox.take()?.sequence, 3)
        XCTAssertNil(mailbox.take())
        XCTAssertEqual(mailbox.replacedCount, 2)
        XCTAssertTrue(mailbox.put(frame(4)))
    }
}
