// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import Basics

/// A capture device found on the system.
public struct CameraInfo: Hashable, Sendable {
    public var path: FilePath
    /// The name the driver gives (VIDIOC_QUERYCAP's card), or the node when it cannot be opened.
    public var name: String
    public var driver: String
    public var busInfo: String
    public var formats: [PixelFormatOffer]
    /// Why it cannot be used, when it cannot (permission denied: the node exists but is not ours).
    public var problem: CameraFailure?

    public init(path: FilePath, name: String, driver: String, busInfo: String, formats: [PixelFormatOffer], problem: CameraFailure?) {
        self.path = path
        self.name = name
        self.driver = driver
        self.busInfo = busInfo
        self.formats = formats
        self.problem = problem
    }

    /// What a capture's EXIF Make says: the USB manufacturer when the kernel knows it, else the driver.
    public var make: String {
        let node = path.lastComponent
        let manufacturer = FilePath("/sys/class/video4linux").appending(node).appending("device/../manufacturer")
        if let text = readSmallFile(manufacturer).map({ String(decoding: $0, as: UTF8.self) }) {
            let trimmed = text.split(separator: "\n").first.map(String.init) ?? ""
            if !trimmed.isEmpty { return trimmed }
        }
        return driver.isEmpty ? "Camera" : driver
    }

    /// What a capture's EXIF Model says: the device's name, without the repetition UVC adds
    /// ("Integrated Camera: Integrated C" is "Integrated Camera").
    public var model: String {
        guard let colon = name.firstRange(of: ": ") else { return name }
        let before = String(name[..<colon.lowerBound]), after = String(name[colon.upperBound...])
        return before.hasPrefix(after) ? before : name
    }
}

/// The system's cameras: `/dev/video*` nodes that capture video and stream it. UVC cameras add a
/// metadata node next to each camera; it does not capture video and is left out.
public enum CameraDevices {
    /// Where device nodes live; tests and the VM use the real one.
    public static let deviceFolder = FilePath("/dev")

    /// Every capture device, in node order (video0, video1, … video10).
    public static func list(in folder: FilePath = deviceFolder) -> [CameraInfo] {
        nodes(in: folder).compactMap(describe)
    }

    /// The `/dev/video*` nodes, in numeric order.
    public static func nodes(in folder: FilePath = deviceFolder) -> [FilePath] {
        guard let directory = folder.withCString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var numbers: [Int] = []
        while let entry = readdir(directory) {
            let name = fixedString(entry.pointee.d_name)
            if name.hasPrefix("video"), let number = Int(name.dropFirst(5)) { numbers.append(number) }
        }
        return numbers.sorted().map { folder.appending("video\($0)") }
    }

    /// The device at `path`, or nil when it is not a video capture device.
    public static func describe(_ path: FilePath) -> CameraInfo? {
        let device: VideoDevice
        do {
            device = try VideoDevice(path: path)
        } catch {
            // A node we may not open is still a camera to tell the person about.
            if case .permissionDenied = error {
                return CameraInfo(path: path, name: path.displayString, driver: "", busInfo: "", formats: [], problem: error)
            }
            return nil
        }
        defer { device.close() }
        guard let capabilities = try? device.capabilities(), capabilities.canCaptureVideo else { return nil }
        let formats = device.formats()
        let usable = formats.contains { FormatPolicy.convertible.contains($0.format) && !$0.sizes.isEmpty }
        return CameraInfo(path: path, name: capabilities.card.isEmpty ? path.displayString : capabilities.card,
                          driver: capabilities.driver, busInfo: capabilities.busInfo, formats: formats,
                          problem: usable ? nil : .noUsableFormat(capabilities.card))
    }

    /// The camera to use: `requested` (a node path, or a name) when given, else the first usable.
    public static func choose(_ requested: String?, from cameras: [CameraInfo]) -> CameraInfo? {
        if let requested {
            return cameras.first { $0.path.displayString == requested }
                ?? cameras.first { $0.name == requested }
                ?? cameras.first { $0.name.localizedCaseInsensitiveContains(requested) }
        }
        return cameras.first { $0.problem == nil } ?? cameras.first
    }
}

private extension String {
    func localizedCaseInsensitiveContains(_ other: String) -> Bool {
        lowercased().contains(other.lowercased())
    }
}
