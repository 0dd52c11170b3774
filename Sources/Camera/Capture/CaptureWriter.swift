// SPDX-License-Identifier: LGPL-2.1-or-later
import CGdkPixbuf
import CGLib
import Glibc
import Basics

/// Writes a captured frame as a JPEG photo: EXIF date with its time zone, the device as make and
/// model, upright. A capture never replaces a file: the name gets a suffix when taken, and the
/// photo appears complete or not at all (written aside, then linked into place).
public struct CaptureWriter: Sendable {
    public var make: String
    public var model: String
    public var quality = 92

    public init(make: String, model: String) {
        self.make = make
        self.model = model
    }

    /// `<Pictures>/Camera`, where the picker's captures go.
    public static var defaultFolder: FilePath { XDGDirectories.picturesFolder.appending("Camera") }

    /// Writes `frame` into `folder` as IMG_YYYYMMDD_HHMMSS.jpg (IMG_…_2.jpg when that is taken)
    /// and returns its path. The folder is made when missing.
    public func write(_ frame: Frame, into folder: FilePath = defaultFolder, at time: Double = LocalTime.now) throws(CameraFailure) -> FilePath {
        try makeFolders(folder)
        let stamp = LocalTime(time)
        let base = "IMG_\(stamp.fileStamp)"
        return try write(frame, at: stamp) { attempt in
            folder.appending(attempt == 1 ? "\(base).jpg" : "\(base)_\(attempt).jpg")
        }
    }

    /// Writes `frame` to exactly `path`; fails rather than replace an existing file.
    public func write(_ frame: Frame, to path: FilePath, at time: Double = LocalTime.now) throws(CameraFailure) -> FilePath {
        try write(frame, at: LocalTime(time)) { attempt in attempt == 1 ? path : nil }
    }

    private func write(_ frame: Frame, at stamp: LocalTime, name: (Int) -> FilePath?) throws(CameraFailure) -> FilePath {
        let jpeg = try encode(frame)
        let exif = ExifSegment(make: make, model: model, dateTimeOriginal: stamp.exifDate,
                               subsecondsOriginal: stamp.exifSubseconds, offsetTimeOriginal: stamp.exifOffset)
        guard let photo = exif.inserted(into: jpeg) else { throw CameraFailure.failed("The picture could not be encoded") }
        guard let first = name(1) else { throw CameraFailure.failed("No file name") }
        let temporary = try writeAside(photo, next: first)
        defer { _ = temporary.withCString { unlink($0) } }
        var attempt = 1
        while let candidate = name(attempt) {
            // link() never replaces: it fails with EEXIST when the name is taken.
            if temporary.withCString({ from in candidate.withCString { to in link(from, to) } }) == 0 {
                return candidate
            }
            let code = errno
            guard code == EEXIST else {
                throw CameraFailure.failed("Cannot save the photo as \(candidate): \(errorDescription(code))")
            }
            attempt += 1
        }
        throw CameraFailure.failed("\(first) already exists")
    }

    /// The JPEG bytes of `frame`, through GdkPixbuf's JPEG saver (libjpeg).
    public func encode(_ frame: Frame) throws(CameraFailure) -> [UInt8] {
        let pixels = frame.pixels
        guard let pixbuf = gdk_pixbuf_new_from_data(pixels.bytes, GDK_COLORSPACE_RGB, 0, 8, Int32(pixels.width), Int32(pixels.height),
                                                    Int32(pixels.stride), nil, nil) else {
            throw CameraFailure.failed("The picture could not be encoded")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        let saved = withExtendedLifetime(pixels) {
            "quality".withCString { key in
                String(quality).withCString { value in
                    var keys: [UnsafeMutablePointer<CChar>?] = [UnsafeMutablePointer(mutating: key), nil]
                    var values: [UnsafeMutablePointer<CChar>?] = [UnsafeMutablePointer(mutating: value), nil]
                    return gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", &keys, &values, &error)
                }
            }
        }
        guard saved != 0, let buffer else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw CameraFailure.failed("The picture could not be encoded: \(message)")
        }
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(size)))
    }

    /// Writes `bytes` to a hidden temporary file beside `next` and flushes it to disk.
    private func writeAside(_ bytes: [UInt8], next path: FilePath) throws(CameraFailure) -> FilePath {
        var template = Array(path.parent.appending(".photopick-capture-XXXXXX").bytes.map { CChar(bitPattern: $0) }) + [0]
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw CameraFailure.failed("Cannot save the photo in \(path.parent): \(errorDescription(errno))")
        }
        let temporary = FilePath(bytes: template.dropLast().map { UInt8(bitPattern: $0) })
        var written = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += count
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        fchmod(descriptor, 0o644)
        Glibc.close(descriptor)
        if failure != 0 {
            _ = temporary.withCString { unlink($0) }
            throw CameraFailure.failed("Cannot save the photo in \(path.parent): \(errorDescription(failure))")
        }
        return temporary
    }

    private func makeFolders(_ folder: FilePath) throws(CameraFailure) {
        if let refusal = XDGDirectories.refusalToMake(folder) { throw CameraFailure.failed("Cannot make the folder \(folder): \(refusal)") }
        var prefix = FilePath(bytes: [])
        for component in folder.bytes.split(separator: UInt8(ascii: "/")) {
            prefix = FilePath(bytes: prefix.bytes + [UInt8(ascii: "/")] + component)
            if prefix.withCString({ mkdir($0, 0o755) }) != 0 && errno != EEXIST {
                throw CameraFailure.failed("Cannot make the folder \(prefix): \(errorDescription(errno))")
            }
        }
    }
}

/// A moment in the local time zone, as file names and EXIF write it.
public struct LocalTime {
    var parts = tm()
    /// Milliseconds into the second: two photos taken within a second keep their order.
    var milliseconds = 0

    /// Now, in seconds since 1970 (with the fraction).
    public static var now: Double {
        var value = timespec()
        clock_gettime(CLOCK_REALTIME, &value)
        return Double(value.tv_sec) + Double(value.tv_nsec) / 1e9
    }

    init(_ time: Double) {
        var whole = time_t(time.rounded(.down))
        milliseconds = min(999, Int((time - Double(whole)) * 1000))
        localtime_r(&whole, &parts)
    }

    var exifSubseconds: String {
        milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
    }

    private func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

    var fileStamp: String {
        "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))_\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }

    var exifDate: String {
        "\(parts.tm_year + 1900):\(two(parts.tm_mon + 1)):\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    var exifOffset: String {
        let minutes = parts.tm_gmtoff / 60
        let sign = minutes < 0 ? "-" : "+"
        let magnitude = Int32(abs(minutes))
        return "\(sign)\(two(magnitude / 60)):\(two(magnitude % 60))"
    }
}
