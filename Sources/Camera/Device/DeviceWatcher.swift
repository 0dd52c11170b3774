// SPDX-License-Identifier: LGPL-2.1-or-later
import CV4L
import Glibc
import Basics

/// Tells when video device nodes come and go (a camera plugged in or pulled out), by watching
/// the device folder with inotify: the kernel's devtmpfs creates and removes the nodes itself, so
/// this works without udev (in the test VM too). A permission change (udev giving the node to
/// the `video` group or the logged-in user after creating it) counts as a change.
///
/// `onChange` runs on the watcher's thread, once per burst of events (a camera adds two nodes).
public final class DeviceWatcher: @unchecked Sendable {
    private let worker = WorkerPool(name: "camera-watch", threads: 1)
    private let inotify: Int32
    private let onChange: @Sendable () -> Void

    public init?(folder: FilePath = CameraDevices.deviceFolder, onChange: @escaping @Sendable () -> Void) {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        self.onChange = onChange
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)
        guard folder.withCString({ inotify_add_watch(inotify, $0, mask) }) >= 0 else {
            Glibc.close(inotify)
            return nil
        }
        _ = worker.submit { [self] in run() }
    }

    deinit {
        stop()
        Glibc.close(inotify)
    }

    /// Stops watching; after it returns, `onChange` does not run again.
    public func stop() { worker.shutdown() }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pendingSince: Double?
        while !worker.isStopping {
            var waiting = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            // Short waits: the loop notices `stop()` quickly.
            _ = poll(&waiting, 1, 100)
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count > 0, mentionsVideoNode(buffer, count: count) {
                pendingSince = pendingSince ?? monotonicSeconds()
            }
            // A burst settles for 0.3 s before anyone is told.
            if let since = pendingSince, monotonicSeconds() - since >= 0.3, count <= 0 {
                pendingSince = nil
                if !worker.isStopping { onChange() }
            }
        }
    }

    private func mentionsVideoNode(_ buffer: [UInt8], count: Int) -> Bool {
        var offset = 0
        var found = false
        buffer.withUnsafeBytes { bytes in
            while offset + MemoryLayout<inotify_event>.size <= count {
                let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = bytes[nameStart..<min(count, nameStart + length)].prefix { $0 != 0 }
                if name.starts(with: Array("video".utf8)) { found = true }
                offset = nameStart + length
            }
        }
        return found
    }
}
