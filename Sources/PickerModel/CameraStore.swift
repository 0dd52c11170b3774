// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import GObjectSupport
import PhotoLibrary

/// The live camera as the picker shows it: which camera, whether it streams, its newest frame,
/// and taking a photo. Views (the camera cell, the capture view) observe it and update only
/// themselves. No GTK; the GTK thread's (the main actor's).
///
/// The camera streams only while someone views it (a bound camera cell or the open capture
/// view) and the window is shown; the device is let go a moment after the last viewer leaves
/// (GTK unbinds and rebinds cells while scrolling) and at `close()`.
@MainActor
public final class CameraStore {
    public enum Status: Equatable, Sendable {
        /// Looking for cameras (at start, before the first answer).
        case searching
        /// No camera on this system.
        case absent
        /// Found, not streaming (nobody views it).
        case idle
        case starting
        case live(StreamFormat)
        case failed(CameraFailure)
    }

    public enum Event {
        case status(Status)
        case frame(Frame)
        /// The list of cameras changed (the capture view's switcher).
        case cameras
    }

    public private(set) var status: Status = .searching { didSet { if status != oldValue { publish(.status(status)) } } }
    public private(set) var cameras: [CameraInfo] = []
    public private(set) var current: CameraInfo?
    public private(set) var latestFrame: Frame?
    /// Whether the picker should show a camera cell: a camera exists (or existed and was pulled
    /// out: its cell then says so), or `alwaysShown`.
    public var isAvailable: Bool { alwaysShown || current != nil }
    /// Called when `isAvailable` changes (the grid adds or removes its camera slot).
    public var onAvailabilityChanged: ((Bool) -> Void)?

    /// Frames the camera sent that a newer one replaced before the GTK thread took them.
    public var replacedFrames: Int { mailbox.replacedCount }
    /// Frames delivered to observers (the benchmark compares them with the device's rate).
    /// They are mirrored (a preview); `capture` saves the camera's own view.
    public private(set) var deliveredFrames = 0

    private let requested: String?
    private let alwaysShown: Bool
    private let post: PickerController.Post
    private let makeSource: @Sendable (FilePath, StreamPurpose) -> FrameSource
    private let listCameras: @Sendable () -> [CameraInfo]
    private let discovery = WorkerPool(name: "camera-find", threads: 1)
    private var watcher: DeviceWatcher?
    private var stream: CameraStream?
    private var streamPurpose: StreamPurpose?
    private let mailbox = FrameMailbox()
    /// The smallest view's size in pixels, read by the worker to shrink frames for it.
    private let smallestView = SmallestView()

    final class SmallestView: @unchecked Sendable {
        private let lock = Lock()
        private var size: (width: Int, height: Int)?
        var current: (width: Int, height: Int)? {
            get { lock.withLock { size } }
            set { lock.withLock { size = newValue } }
        }
    }
    private let subscribers = Subscribers<Event>()
    private var nextToken = 0
    private var viewers: [Int: StreamPurpose] = [:]
    private var isWindowShown = true
    private var isClosed = false
    private var stopTimer: (@MainActor () -> Void)?
    private var stopGeneration = 0

    /// - Parameters:
    ///   - requested: `--camera DEVICE` (a node or a name), else the first camera.
    ///   - alwaysShown: show the cell even with no camera (a setting), saying "No camera".
    public init(requested: String? = nil, alwaysShown: Bool = false, post: @escaping PickerController.Post,
                listCameras: @escaping @Sendable () -> [CameraInfo] = { CameraDevices.list() },
                makeSource: @escaping @Sendable (FilePath, StreamPurpose) -> FrameSource = { V4L2FrameSource(path: $0, purpose: $1) }) {
        self.requested = requested
        self.alwaysShown = alwaysShown
        self.post = post
        self.listCameras = listCameras
        self.makeSource = makeSource
    }

    /// Looks for cameras in the background and follows hotplug from then on. The window's first
    /// frame never waits for this.
    public func start(watchingDevices: Bool = true) {
        rediscover()
        if watchingDevices {
            watcher = DeviceWatcher { [weak self, post] in
                post { self?.rediscover() }
            }
        }
    }

    public func close() {
        isClosed = true
        watcher?.stop()
        watcher = nil
        discovery.shutdown()
        stopStream()
        subscribers.removeAll()
        onAvailabilityChanged = nil
    }

    // MARK: Viewers

    /// A view shows the camera at this size: the stream runs (or switches to the largest size
    /// any viewer needs). End with `endViewing`.
    public func beginViewing(_ purpose: StreamPurpose) -> Int {
        let token = nextToken
        nextToken += 1
        viewers[token] = purpose
        updateStream()
        return token
    }

    public func endViewing(_ token: Int) {
        viewers[token] = nil
        updateStream()
    }

    /// The window was shown or hidden (minimised, closed): no streaming for a hidden window.
    public func setWindowShown(_ shown: Bool) {
        isWindowShown = shown
        updateStream()
    }

    /// The camera the person chose in the capture view, to remember for later runs.
    public private(set) var chosenCamera: CameraInfo?

    /// Streams to the camera the person chose in the capture view.
    public func switchCamera(to camera: CameraInfo) {
        guard camera != current else { return }
        current = camera
        chosenCamera = camera
        stopStream()
        updateStream()
    }

    // MARK: Observing

    public func observe(_ handler: @escaping (Event) -> Void) -> Subscription {
        subscribers.subscribe(handler)
    }

    private func publish(_ event: Event) { subscribers.publish(event) }

    // MARK: Capture

    /// Saves the newest frame as a photo in `folder` (on a worker) and hands back its path, or
    /// why it could not. Only while live.
    public func capture(into folder: FilePath = CaptureWriter.defaultFolder,
                        completion: @escaping @MainActor (Result<FilePath, CameraFailure>) -> Void) {
        guard case .live = status, let frame = latestFrame, let camera = current else {
            completion(.failure(.failed(i18n("The camera is not ready yet"))))
            return
        }
        let post = self.post
        let submitted = discovery.submit {
            // (`make` reads sysfs: here, not on the GTK thread.)
            let writer = CaptureWriter(make: camera.make, model: camera.model)
            // The preview is mirrored; the photo is what the camera sees (text reads right).
            let pixels = frame.pixels.copy()
            pixels.mirrorHorizontally()
            let photo = Frame(pixels: pixels, sequence: frame.sequence)
            let result: Result<FilePath, CameraFailure>
            do throws(CameraFailure) { result = .success(try writer.write(photo, into: folder)) } catch { result = .failure(error) }
            // (Saved all the same once the picker closed: only nobody is told.)
            post { [weak self] in if let self, !self.isClosed { completion(result) } }
        }
        if !submitted { completion(.failure(.failed(i18n("The picker is closing")))) }
    }

    // MARK: Discovery

    /// Looks for cameras again (the device watcher does this on hotplug).
    public func lookAgain() { rediscover() }

    private func rediscover() {
        guard !isClosed else { return }
        let list = listCameras, post = self.post
        _ = discovery.submit { [weak self] in
            let found = list()
            post { self?.discovered(found) }
        }
    }

    private func discovered(_ found: [CameraInfo]) {
        guard !isClosed else { return }
        cameras = found
        publish(.cameras)
        let previous = current
        if let previous, let same = found.first(where: { $0.path == previous.path && $0.name == previous.name }) {
            current = same
        } else if let chosen = CameraDevices.choose(requested, from: found) {
            current = chosen
        } else if previous == nil {
            status = .absent
        }
        // A camera pulled out keeps its cell, which says so (`current` stays).
        if let current, !found.contains(where: { $0.path == current.path }) {
            stopStream()
            status = .failed(.unplugged(current.name))
        } else if let current, current != previous || status == .searching || isUnplugged {
            if let problem = current.problem {
                status = .failed(problem)
            } else {
                stopStream()
                status = .idle
                updateStream()
            }
        }
        // Said after every look (not only on a change): a slot given at start with no camera found goes.
        onAvailabilityChanged?(isAvailable)
    }

    private var isUnplugged: Bool {
        if case .failed(.unplugged) = status { return true }
        return false
    }

    // MARK: Streaming

    /// The size the viewers need: the capture view's when it is open, else the largest cell's.
    private var wantedPurpose: StreamPurpose? {
        guard isWindowShown, !viewers.isEmpty else { return nil }
        var width = 0, height = 0
        for purpose in viewers.values {
            if case .preview(let w, let h) = purpose {
                width = max(width, w)
                height = max(height, h)
            }
        }
        return .preview(width: width, height: height)
    }

    private func updateStream() {
        smallestView.current = viewers.values.compactMap { purpose -> (width: Int, height: Int)? in
            if case .preview(let width, let height) = purpose { return (width, height) }
            return nil
        }.min { $0.width * $0.height < $1.width * $1.height }
        guard !isClosed, let current, current.problem == nil else { return }
        switch status {
        // These need the device to change first (discovery says when).
        case .failed(.unplugged), .failed(.permissionDenied), .failed(.noUsableFormat), .absent, .searching: return
        default: break
        }
        guard let wanted = wantedPurpose else {
            scheduleStop()
            return
        }
        stopGeneration += 1  // a pending stop is off
        if stream != nil, streamPurpose == wanted { return }
        // (Re)start: a new size, or a viewer back after a failure (the other program may be done
        // with the camera by now).
        stopStream()
        startStream(current, purpose: wanted)
    }

    /// The stream stops a second after the last viewer left, unless one comes back.
    private func scheduleStop() {
        guard stream != nil else { return }
        stopGeneration += 1
        let generation = stopGeneration, post = self.post
        _ = discovery.submit(after: 1.0) {
            post { [weak self] in
                guard let self, generation == self.stopGeneration, self.wantedPurpose == nil else { return }
                self.stopStream()
                switch self.status {
                case .live, .starting: self.status = .idle
                default: break
                }
            }
        }
    }

    private func startStream(_ camera: CameraInfo, purpose: StreamPurpose) {
        let path = camera.path, makeSource = self.makeSource, post = self.post, mailbox = self.mailbox
        let stream = CameraStream(makeSource: { makeSource(path, purpose) }, onState: { [weak self] state in
            post { self?.streamState(state) }
        }, onFrame: { [weak self, smallestView] frame in
            // Shown mirrored, as every webcam app does; a capture flips it back.
            frame.pixels.mirrorHorizontally()
            // The cell draws a copy its size (made here, not by the GTK thread each frame).
            let shown = smallestView.current.map { frame.withSmall(covering: $0.width, $0.height) } ?? frame
            // The newest frame wins: a busy GTK thread takes one frame, never a backlog.
            if mailbox.put(shown) { post { self?.takeFrame() } }
        })
        self.stream = stream
        streamPurpose = purpose
        status = .starting
        stream.start()
    }

    private func stopStream() {
        stream?.stop()
        stream = nil
        streamPurpose = nil
        _ = mailbox.take()
    }

    private func streamState(_ state: CameraStream.State) {
        guard stream != nil else { return }
        switch state {
        case .starting: status = .starting
        case .live(let format): status = .live(format)
        case .failed(let failure):
            // The device is let go; a viewer coming back tries again.
            stopStream()
            latestFrame = nil
            status = .failed(failure)
        }
    }

    private func takeFrame() {
        guard stream != nil, let frame = mailbox.take() else { return }
        latestFrame = frame
        deliveredFrames += 1
        publish(.frame(frame))
    }
}
