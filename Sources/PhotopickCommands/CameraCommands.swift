// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import GObjectSupport
import Glibc
import PhotoLibrary

// photopick cameras and photopick capture: the camera without a window.

let cameraOption = OptionParser.Option("camera", .string, N_("The camera to use: a device (/dev/video2) or a name (default: the first)"), argument: "DEVICE")

// MARK: photopick cameras

func camerasCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = camerasOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage(unexpectedArgument(rest[0])) }
    let cameras = CameraDevices.list()
    if let seconds = parser.integer("stream") {
        guard seconds > 0 else { return usage(i18n("--stream needs a number of seconds above 0")) }
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
        warn(i18n("{device} is not a video capture device", ["device": requested]))
        return nil
    }
    guard let camera = CameraDevices.choose(requested, from: cameras) else {
        warn(requested.map { i18n("no camera “{camera}” (photopick cameras lists them)", ["camera": $0]) } ?? CameraFailure.noCamera.explanation)
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
            warn(i18n("{camera}: streaming {format}", ["camera": camera.name, "format": "\(format)"]))
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
        output.write(i18n("{frames} frames in {seconds} s: {rate} fps", ["frames": String(tally.frames), "seconds": String(seconds),
                                                                         "rate": jsonNumber((rate * 10).rounded() / 10)])
            + (tally.format.map { " (\($0))" } ?? "") + ", " + i18n("{dropped} dropped by the driver", ["dropped": String(max(0, dropped))]) + "\n")
        output.flush()
        return tally.failure == nil && tally.frames > 0 ? ExitStatus.success : ExitStatus.failure
    }
}

// MARK: photopick capture

func captureCommand(_ arguments: [[UInt8]]) throws -> Int32 {
    let parser = captureOptions()
    guard let rest = try parseOrReport(parser, arguments) else { return ExitStatus.usage }
    guard rest.isEmpty else { return usage(unexpectedArgument(rest[0])) }
    let output = parser.filenames("output").last.map { FilePath(bytes: $0) }
    if let output {
        // Checked before the camera starts: nothing is taken that could not be saved.
        if access(output.displayString, F_OK) == 0 { warn(i18n("{file} already exists; choose another name", ["file": output.displayString])); return ExitStatus.failure }
        if !output.parent.isDirectory { warn(i18n("{folder} is not a folder", ["folder": output.parent.displayString])); return ExitStatus.failure }
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
    OptionParser(parameters: N_("- list cameras"), summary: N_("Lists the cameras (V4L2 video capture devices) with their formats, sizes and frame rates."), options: [
        OptionParser.Option("json", .flag, N_("Print a JSON array")),
        OptionParser.Option("stream", .integer, N_("Stream the camera for SECONDS and report the frames that arrived"), argument: "SECONDS"),
        cameraOption,
    ])
}

/// `photopick capture`'s options (also read by the man page).
func captureOptions() -> OptionParser {
    OptionParser(parameters: N_("- take a photo"), summary: N_("Takes one photo with the camera, saves it as a JPEG and prints its path."), options: [
        cameraOption,
        OptionParser.Option("output", short: "o", .filenames, N_("Save the photo as FILE (default: Pictures/Camera/IMG_date_time.jpg); never replaces a file"), argument: "FILE"),
    ])
}
