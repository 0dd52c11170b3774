// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import Dispatch
import Glibc
import PhotoLibrary

// Threads that make and let go of GFiles of one remote location for a while, as a scan's readers,
// GTK's folder chooser and GLib's own threads do at once: gvfs 1.50's client frees a mount's shared
// description while another thread takes it, and the heap is corrupted within seconds unless
// `RemoteFiles` keeps one of its files. The remote-files tests (PhotoLibraryTests/RemoteLibraryTests)
// run it with a mounted sftp:// folder and expect it to end well.
//
//   remote-files-probe LOCATION SECONDS
let arguments = CommandLine.arguments
guard arguments.count == 3, let seconds = Double(arguments[2]) else {
    print("usage: remote-files-probe LOCATION SECONDS")
    exit(2)
}
let location = arguments[1]
// One file through RemoteFiles, as the library's first look at its root makes one.
RemoteFiles.withFile(FilePath(location)) { _ in }
let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
let group = DispatchGroup()
final class Counter: @unchecked Sendable { var value = 0 }
let counters = (0..<3).map { _ in Counter() }
for thread in 0..<3 {
    group.enter()
    Thread.detach {
        var made = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            for index in 0..<1000 {
                let child = "\(location)/file-\(index % 97).jpg"
                if thread == 0 {
                    // The library's own threads: through RemoteFiles.
                    RemoteFiles.withFile(FilePath(child)) { _ in }
                } else {
                    // Anyone else's (GTK's chooser, GLib's threads): GIO directly.
                    let file = child.withCString { g_file_new_for_uri($0) }
                    g_object_unref(UnsafeMutableRawPointer(file))
                }
                made += 1
            }
        }
        counters[thread].value = made
        group.leave()
    }
}
group.wait()
print("made and let go of \(counters.map(\.value).reduce(0, +)) files of \(location)")

/// A plain POSIX thread (Foundation is not linked here).
enum Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { raw in
            let box = Unmanaged<AnyObject>.fromOpaque(raw!).takeRetainedValue() as! Box
            box.body()
            return nil
        }, box)
        pthread_detach(thread)
    }
}
