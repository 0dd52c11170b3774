// SPDX-License-Identifier: GPL-3.0-or-later
// Camera benchmark driver (see bench/run-camera-benchmark). Prints one JSON object.
//   convert            conversion cost of a 640x480 frame to RGB on this machine: YUYV and MJPEG
//                      through libv4lconvert, and the mirroring the preview adds (median of 300).
//   window LIBRARY S   the picker window on LIBRARY with the real camera (run inside with-vivid,
//                      under Xvfb): when the window's first frame was painted and when the camera
//                      cell first showed a camera frame (both from gtk_window_present); frames the
//                      cell showed a second over S seconds against the rate the device streams at;
//                      the process's CPU use over S seconds with the camera cell in view, then
//                      with it scrolled out of view (the stream must stop). --synthetic: a camera
//                      without a device (640x480 YUYV at 25 fps) on this machine's own display.
import Camera
import CGdkPixbuf
import CGtk
import Glibc
import GObjectSupport
import PhotoLibrary
import PickerModel
@_spi(Testing) import PickerUI
import Thumbnails

func printLine(_ text: String) { _ = (text + "\n").withCString { write(1, $0, strlen($0)) } }
func ms(_ seconds: Double) -> Double { (seconds * 100_000).rounded() / 100 }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Colour bars with a gradient and sensor noise (a flat picture compresses to almost nothing:
/// a webcam's MJPEG frames are tens of kilobytes).
func barsRGB(width: Int, height: Int) -> PixelBuffer {
    let pixels = PixelBuffer(width: width, height: height)
    var seed: UInt32 = 12345
    func noise() -> UInt8 {
        seed = seed &* 1_103_515_245 &+ 12345
        return UInt8((seed >> 16) % 24)
    }
    let bars: [(UInt8, UInt8, UInt8)] = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0), (191, 0, 191), (191, 0, 0), (0, 0, 191), (16, 16, 16)]
    for y in 0..<height {
        for x in 0..<width {
            let bar = bars[x * bars.count / width]
            let shade = UInt8(y * 60 / height)
            let offset = y * pixels.stride + x * 3
            pixels.bytes[offset] = bar.0 / 2 &+ shade / 4 &+ noise()
            pixels.bytes[offset + 1] = bar.1 / 2 &+ noise()
            pixels.bytes[offset + 2] = bar.2 / 2 &+ shade / 4 &+ noise()
        }
    }
    return pixels
}

func median(_ body: () -> Void, runs: Int = 300) -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = monotonicSeconds()
        body()
        times.append(monotonicSeconds() - start)
    }
    return times.sorted()[runs / 2]
}

func convertBenchmark() throws {
    let width = 640, height = 480
    let rgb = barsRGB(width: width, height: height)
    // YUYV from the RGB bars (BT.601 studio swing), two pixels sharing U and V.
    var yuyv = [UInt8](repeating: 0, count: width * height * 2)
    for y in 0..<height {
        for x in stride(from: 0, to: width, by: 2) {
            func yuv(_ px: Int) -> (Double, Double, Double) {
                let (r, g, b) = rgb.pixel(x: px, y: y)
                let R = Double(r), G = Double(g), B = Double(b)
                return (16 + 0.257 * R + 0.504 * G + 0.098 * B, 128 - 0.148 * R - 0.291 * G + 0.439 * B, 128 + 0.439 * R - 0.368 * G - 0.071 * B)
            }
            let a = yuv(x), b = yuv(x + 1)
            let offset = (y * width + x) * 2
            yuyv[offset] = UInt8(a.0); yuyv[offset + 1] = UInt8((a.1 + b.1) / 2)
            yuyv[offset + 2] = UInt8(b.0); yuyv[offset + 3] = UInt8((a.2 + b.2) / 2)
        }
    }
    let jpeg = try CaptureWriter(make: "bench", model: "bench").encode(Frame(pixels: rgb, sequence: 0))
    let rate = FrameRate(frames: 30, seconds: 1)
    let yuyvConverter = try FrameConverter(format: StreamFormat(format: .yuyv, width: width, height: height, bytesPerLine: width * 2, imageSize: yuyv.count, frameRate: rate))
    let mjpegConverter = try FrameConverter(format: StreamFormat(format: .mjpeg, width: width, height: height, bytesPerLine: 0, imageSize: jpeg.count, frameRate: rate))
    guard yuyv.withUnsafeBytes({ yuyvConverter.convert($0) }) != nil, jpeg.withUnsafeBytes({ mjpegConverter.convert($0) }) != nil else {
        printLine("{\"error\": \"conversion failed: \(mjpegConverter.lastError)\"}")
        exit(1)
    }
    let yuyvTime = median { _ = yuyv.withUnsafeBytes { yuyvConverter.convert($0) } }
    let mjpegTime = median { _ = jpeg.withUnsafeBytes { mjpegConverter.convert($0) } }
    let frame = rgb.copy()
    let mirrorTime = median { frame.mirrorHorizontally() }
    printLine("{\"frame\": \"640x480\", \"yuyv_ms\": \(ms(yuyvTime)), \"mjpeg_ms\": \(ms(mjpegTime)), \"mjpeg_bytes\": \(jpeg.count), \"mirror_ms\": \(ms(mirrorTime))}")
}

/// A camera without a device: moving colour bars at 640x480, 25 frames a second, converted from
/// YUYV like a webcam's (the host has no V4L2; the VM's emulated CPU cannot draw 25 fps).
final class SyntheticCamera: FrameSource, @unchecked Sendable {
    let name = "Synthetic Camera"
    private var converter: FrameConverter?
    private var yuyv: [UInt8] = []
    private var next = 0.0
    private var sequence = 0
    private let format = StreamFormat(format: .yuyv, width: 640, height: 480, bytesPerLine: 1280, imageSize: 640 * 480 * 2,
                                      frameRate: FrameRate(frames: 25, seconds: 1))

    func start() throws(CameraFailure) -> StreamFormat {
        converter = try FrameConverter(format: format)
        yuyv = [UInt8](repeating: 128, count: format.imageSize)
        next = monotonicSeconds()
        return format
    }

    func nextFrame(timeout: Double) throws(CameraFailure) -> Frame? {
        let wait = next - monotonicSeconds()
        if wait > timeout { usleep(UInt32(timeout * 1e6)); return nil }
        if wait > 0 { usleep(UInt32(wait * 1e6)) }
        next += 1.0 / 25
        sequence += 1
        // Bars that move a little each frame.
        for y in stride(from: 0, to: 480, by: 1) {
            for x in stride(from: 0, to: 640, by: 2) {
                let offset = y * 1280 + x * 2
                let bar = UInt8(((x + sequence * 8) / 80) % 8)
                yuyv[offset] = 40 + bar * 25; yuyv[offset + 2] = 40 + bar * 25
                yuyv[offset + 1] = 128 &+ bar &* 13; yuyv[offset + 3] = 128 &- bar &* 11
            }
        }
        return yuyv.withUnsafeBytes { converter?.convert($0, sequence: sequence) }
    }

    func stop() { converter = nil }
}

final class Times { var firstPaint: Double?; var firstCameraFrame: Double? }
/// Global: the frame clock's C callback cannot capture anything.
nonisolated(unsafe) let times = Times()

@MainActor func windowBenchmark(library path: String, seconds: Double, synthetic: Bool) throws {
    guard gtk_init_check() != 0 else { exit(3) }
    adw_init()  // (as the program's AdwApplication does)
    let library = try PhotoLibrary(roots: [FilePath(path)])
    try library.scan()
    let loader = ThumbnailLoader()
    let camera = synthetic
        ? CameraStore(post: { MainLoopDispatcher.shared.post($0) },
                      listCameras: { [CameraInfo(path: FilePath("/dev/synthetic"), name: "Synthetic Camera", driver: "none", busInfo: "",
                                                 formats: [], problem: nil)] },
                      makeSource: { _, _ in SyntheticCamera() })
        : CameraStore(post: { MainLoopDispatcher.shared.post($0) })
    let view = Picker.hosting(library: library, loader: loader, camera: camera, showsCameraAtStart: synthetic || !CameraDevices.nodes().isEmpty)
    let metrics = PickerMetrics()
    view.metrics = metrics
    let window = gtk_window_new()!
    let gtkWindow = UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self)
    gtk_window_set_default_size(gtkWindow, 960, 720)
    gtk_window_set_child(gtkWindow, view.widget)
    try view.showAlbums()
    let presented = monotonicSeconds()
    gtk_window_present(gtkWindow)
    camera.start()
    let clock = gtk_widget_get_frame_clock(window)!
    let thunk: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _ in
        if times.firstPaint == nil { times.firstPaint = monotonicSeconds() }
    }
    g_signal_connect_data(UnsafeMutableRawPointer(clock), "after-paint", unsafeBitCast(thunk, to: GCallback.self), nil, nil, GConnectFlags(rawValue: 0))
    // The loop blocks for events (a 50 ms timer wakes it): a polling loop here would be counted
    // as the picker's CPU.
    g_timeout_add(50, { _ in 1 }, nil)
    func run(for duration: Double) {
        let end = monotonicSeconds() + duration
        while monotonicSeconds() < end { g_main_context_iteration(nil, 1) }
    }
    // Until the cell shows a frame (at most 30 s under emulation).
    let deadline = monotonicSeconds() + 30
    while view.cameraCellFrames == 0 && monotonicSeconds() < deadline { g_main_context_iteration(nil, 1) }
    times.firstCameraFrame = view.cameraCellFrames > 0 ? monotonicSeconds() : nil
    // The rate is measured at 640x480 (the target): a second viewer asks for that size.
    let large = camera.beginViewing(.preview(width: 640, height: 480))
    run(for: 1)
    let switchDeadline = monotonicSeconds() + 20
    while monotonicSeconds() < switchDeadline {
        if case .live(let format) = camera.status, format.width >= 640 { break }
        run(for: 0.1)
    }
    // Idle: every thumbnail of the screen made before CPU is measured.
    let idleDeadline = monotonicSeconds() + 60
    while metrics.cellsWaiting > 0 && monotonicSeconds() < idleDeadline { run(for: 0.2) }
    run(for: 2)  // settle
    var rate = 0.0
    if case .live(let format) = camera.status { rate = format.frameRate.perSecond }
    let format = { if case .live(let format) = camera.status { return format.description } else { return "\(camera.status)" } }()
    let framesBefore = view.cameraCellFrames, cpuBefore = cpuSeconds(), start = monotonicSeconds()
    let deliveredBefore = camera.deliveredFrames, replacedBefore = camera.replacedFrames
    run(for: seconds)
    let elapsed = monotonicSeconds() - start
    let shown = Double(view.cameraCellFrames - framesBefore) / elapsed
    // What the worker handed on (taken by the GTK thread, or replaced by a newer one first).
    let received = Double(camera.deliveredFrames - deliveredBefore + camera.replacedFrames - replacedBefore) / elapsed
    let cpuVisible = (cpuSeconds() - cpuBefore) / elapsed
    camera.endViewing(large)
    // Out of view: to the end of the grid.
    let adjustment = view.verticalAdjustment!
    gtk_adjustment_set_value(adjustment, gtk_adjustment_get_upper(adjustment))
    run(for: 1)
    while metrics.cellsWaiting > 0 && monotonicSeconds() < idleDeadline + 60 { run(for: 0.2) }
    run(for: 2.5)
    let streamingWhenHidden = { if case .live = camera.status { return true } else { return false } }()
    let cpuBeforeHidden = cpuSeconds(), hiddenStart = monotonicSeconds()
    run(for: seconds)
    let cpuHidden = (cpuSeconds() - cpuBeforeHidden) / (monotonicSeconds() - hiddenStart)
    func optional(_ value: Double?) -> String { value.map { String(ms($0 - presented)) } ?? "null" }
    printLine("{\"format\": \"\(format)\", \"window_first_paint_ms\": \(optional(times.firstPaint)), "
              + "\"first_camera_frame_ms\": \(optional(times.firstCameraFrame)), \"device_fps\": \(rate), "
              + "\"worker_fps\": \((received * 100).rounded() / 100), \"cell_fps\": \((shown * 100).rounded() / 100), \"cell_fps_ratio\": \(rate > 0 ? (shown / rate * 1000).rounded() / 1000 : 0), "
              + "\"cpu_share_camera_visible\": \((cpuVisible * 1000).rounded() / 1000), \"cpu_share_camera_scrolled_away\": \((cpuHidden * 1000).rounded() / 1000), "
              + "\"streaming_when_scrolled_away\": \(streamingWhenHidden)}")
    view.controller.close()
    exit(0)
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "convert":
    try convertBenchmark()
case "window" where arguments.count >= 3:
    try MainActor.assumeIsolated {
        try windowBenchmark(library: arguments[2], seconds: arguments.count > 3 ? Double(arguments[3]) ?? 5 : 5,
                            synthetic: arguments.contains("--synthetic"))
    }
default:
    _ = "usage: camera-benchmark convert | window LIBRARY [SECONDS] [--synthetic]\n".withCString { write(2, $0, strlen($0)) }
    exit(2)
}
