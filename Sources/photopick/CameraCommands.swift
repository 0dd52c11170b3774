import Camera
import Glibc
import PhotoLibrary

// photopick cameras and photopick capture: the camera without a window.

let cameraOption = OptionParser.Option("camera", .string, "The camera to use: a device (/dev/video2) or a name (default: the first)", argument: "DEVICE")

// MARK: photopick cameras

func camerasCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = camerasOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage("unexpected argument “\(String(decoding: rest[0], as: UTF8.self))”") }
    let cameras = CameraDevices.list()
    if let seconds = parser.integer("stream") {
        guard seconds > 0 else { return usage("--stream needs a number of seconds above 0") }
        guard let camera = try chooseCamera(parser.string("camera"), from: cameras) else { return ExitStatus.failure }
        return streamForReport(camera, seconds: seconds)
    }
    var output = StandardOutput()
    if parser.flag("json") {
        output.write("[" + cameras.map(json).joined(separator: ",\n ") + "]\n")
    } else if cameras.isEmpty {
        warn(CameraFailure.noCamera.explanation)
    } else {
        for camera in cameras {
            output.write("\(camera.path)  \(camera.name)" + (camera.driver.isEmpty ? "" : "  (\(camera.driver), \(camera.busInfo))") + "\n")
            if let problem = camera.problem { output.write("  \(problem.title): \(problem.explanation)\n") }
            // Formats offered at the same sizes and rates share a line (vivid offers 83).
            var groups: [(formats: [String], sizes: String)] = []
            for format in camera.formats {
                let sizes = format.sizes.map { size in
                    "\(size.width)x\(size.height)" + (size.fastest.map { " \($0.description)" } ?? "")
                }.joined(separator: ", ")
                if let index = groups.firstIndex(where: { $0.sizes == sizes }) {
                    groups[index].formats.append(format.format.description)
                } else {
                    groups.append(([format.format.description], sizes))
                }
            }
            for group in groups {
                output.write("  \(group.formats.joined(separator: " "))\n    \(group.sizes)\n")
            }
        }
    }
    output.flush()
    return ExitStatus.success
}

private func json(_ camera: CameraInfo) -> String {
    var object = JSONObject()
    object.add("path", camera.path.displayString)
    object.add("name", camera.name)
    object.add("driver", camera.driver)
    object.add("bus", camera.busInfo)
    object.add("usable", camera.problem == nil)
    object.add("problem", camera.problem?.explanation)
    let formats = camera.formats.map { format -> String in
        var entry = JSONObject()
        entry.add("fourcc", format.format.description)
        entry.add("description", format.name)
        let sizes = format.sizes.map { size -> String in
            var sizeObject = JSONObject()
            sizeObject.add("width", size.width)
            sizeObject.add("height", size.height)
            sizeObject.add(raw: "fps", "[" + size.frameRates.sorted(by: >).map { jsonNumber($0.perSecond) }.joined(separator: ",") + "]")
            return sizeObject.text
        }
        entry.add(raw: "sizes", "[" + sizes.joined(separator: ",") + "]")
        return entry.text
    }
    object.add(raw: "formats", "[" + formats.joined(separator: ",") + "]")
    return object.text
}

private func jsonNumber(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String((value * 1000).rounded() / 1000)
}

/// The camera `requested` names, or the first; nil after saying why there is none.
private func chooseCamera(_ requested: String?, from cameras: [CameraInfo]) throws -> CameraInfo? {
    if let requested, requested.hasPrefix("/"), !cameras.contains(where: { $0.path.displayString == requested }) {
        // A node that is not in the list: say what is wrong with it.
        if let described = CameraDevices.describe(FilePath(requested)) { return described }
        warn("\(requested) is not a video capture device")
        return nil
    }
    guard let camera = CameraDevices.choose(requested, from: cameras) else {
        warn(requested.map { "no camera “\($0)” (photopick cameras lists them)" } ?? CameraFailure.noCamera.explanation)
        return nil
    }
    if let problem = camera.problem {
        warn("\(problem.title): \(problem.explanation)")
        return nil
    }
    return camera
}

/// Streams for `seconds` through the picker's own stream (with its stall handling) and reports.
private func streamForReport(_ camera: CameraInfo, seconds: Int) -> Int32 {
    final class Tally: @unchecked Sendable {
        let lock = Lock()
        var frames = 0
        var first: Double?
        var last: Double?
        var firstSequence: Int?
        var lastSequence = 0
        var failure: CameraFailure?
        var format: StreamFormat?
    }
    let tally = Tally()
    let path = camera.path
    let stream = CameraStream(makeSource: { V4L2FrameSource(path: path, purpose: .preview(width: 640, height: 480)) }, onState: { state in
        switch state {
        case .starting: break
        case .live(let format):
            tally.lock.withLock { tally.format = format }
            warn("\(camera.name): streaming \(format)")
        case .failed(let failure):
            tally.lock.withLock { tally.failure = failure }
            warn("\(failure.title): \(failure.explanation)")
        }
    }, onFrame: { frame in
        let now = monotonicSeconds()
        tally.lock.withLock {
            tally.frames += 1
            if tally.first == nil { tally.first = now; tally.firstSequence = frame.sequence }
            tally.last = now
            tally.lastSequence = frame.sequence
        }
    })
    stream.start()
    let deadline = monotonicSeconds() + Double(seconds)
    while monotonicSeconds() < deadline, tally.lock.withLock({ tally.failure == nil }) { usleep(20_000) }
    stream.stop()
    return tally.lock.withLock {
        var output = StandardOutput()
        let span = (tally.last ?? 0) - (tally.first ?? 0)
        // Rate over the intervals between frames; the driver's counter tells what it dropped.
        let rate = tally.frames > 1 && span > 0 ? Double(tally.frames - 1) / span : 0
        let dropped = tally.firstSequence.map { tally.lastSequence - $0 + 1 - tally.frames } ?? 0
        output.write("\(tally.frames) frames in \(seconds) s: \(jsonNumber((rate * 10).rounded() / 10)) fps"
            + (tally.format.map { " (\($0))" } ?? "") + ", \(max(0, dropped)) dropped by the driver\n")
        output.flush()
        return tally.failure == nil && tally.frames > 0 ? ExitStatus.success : ExitStatus.failure
    }
}

// MARK: photopick capture

func captureCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = captureOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage("unexpected argument “\(String(decoding: rest[0], as: UTF8.self))”") }
    let output = parser.filenames("output").last.map { FilePath(bytes: $0) }
    if let output {
        // Checked before the camera starts: nothing is taken that could not be saved.
        if access(output.displayString, F_OK) == 0 { warn("\(output) already exists; choose another name"); return ExitStatus.failure }
        if !output.parent.isDirectory { warn("\(output.parent) is not a folder"); return ExitStatus.failure }
    }
    guard let camera = try chooseCamera(parser.string("camera"), from: CameraDevices.list()) else { return ExitStatus.failure }
    let frame: Frame
    do {
        frame = try StillCapture.take(from: camera)
    } catch {
        warn("\(error.title): \(error.explanation)")
        return ExitStatus.failure
    }
    let writer = CaptureWriter(make: camera.make, model: camera.model)
    do throws(CameraFailure) {
        let path = if let output { try writer.write(frame, to: output) } else { try writer.write(frame) }
        var standardOutput = StandardOutput()
        standardOutput.write(path.bytes + [UInt8(ascii: "\n")])
        standardOutput.flush()
        return ExitStatus.success
    } catch {
        warn(error.explanation)
        return ExitStatus.failure
    }
}

/// `photopick cameras`'s options (also read by the man page).
func camerasOptions() -> OptionParser {
    OptionParser(parameters: "- list cameras", summary: "Lists the cameras (V4L2 video capture devices) with their formats, sizes and frame rates.", options: [
        OptionParser.Option("json", .flag, "Print a JSON array"),
        OptionParser.Option("stream", .integer, "Stream the camera for SECONDS and report the frames that arrived", argument: "SECONDS"),
        cameraOption,
    ])
}

/// `photopick capture`'s options (also read by the man page).
func captureOptions() -> OptionParser {
    OptionParser(parameters: "- take a photo", summary: "Takes one photo with the camera, saves it as a JPEG and prints its path.", options: [
        cameraOption,
        OptionParser.Option("output", short: "o", .filenames, "Save the photo as FILE (default: Pictures/Camera/IMG_date_time.jpg); never replaces a file", argument: "FILE"),
    ])
}
