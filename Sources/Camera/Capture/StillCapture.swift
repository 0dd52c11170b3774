// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics

/// One photo from a camera without a window (`photopick capture`).
public enum StillCapture {
    /// Streams at the camera's largest size until its exposure settles (webcams' first frames
    /// are dark: at least `settle` seconds and three frames), and returns the next frame.
    public static func take(from camera: CameraInfo, settle: Double = 0.6, timeout: Double = 5) throws(CameraFailure) -> Frame {
        let source = V4L2FrameSource(path: camera.path, purpose: .still)
        defer { source.stop() }
        _ = try source.start()
        let started = monotonicSeconds()
        var lastFrame = started
        var frames = 0
        while true {
            let now = monotonicSeconds()
            if let frame = try source.nextFrame(timeout: 0.25) {
                frames += 1
                lastFrame = monotonicSeconds()
                if frames >= 3 && lastFrame - started >= settle { return frame }
            } else if now - lastFrame > timeout {
                throw CameraFailure.stalled(source.name)
            }
        }
    }
}
