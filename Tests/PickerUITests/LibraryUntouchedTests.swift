// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The library is sacred: a session that indexes, lists, makes thumbnails, picks and copies in
/// the window, and cancels leaves every file and folder under the library exactly as it was
/// (paths, sizes, modification times, SHA-256), and strace sees no call that could change one:
/// no open for writing, no write to a descriptor of a file there, no rename, unlink, mkdir,
/// chmod or time change below the root.
final class LibraryUntouchedTests: WindowTestCase {
    override var requiredTools: [String] { ["/usr/bin/strace", "/usr/bin/python3"] }

    /// Every entry below the root: path, kind, size, modification time (ns) and the SHA-256 of
    /// a file's bytes.
    private func snapshot() throws -> String {
        let result = try TestSupport.run("/usr/bin/python3", ["-c", """
            import hashlib, os, stat, sys
            root = sys.argv[1]
            for folder, folders, files in os.walk(root):
                folders.sort()
                for name in sorted(folders + files):
                    path = os.path.join(folder, name)
                    info = os.lstat(path)
                    digest = ""
                    if stat.S_ISREG(info.st_mode):
                        with open(path, "rb") as f: digest = hashlib.sha256(f.read()).hexdigest()
                    print(os.path.relpath(path, root), stat.S_IFMT(info.st_mode), info.st_size, info.st_mtime_ns, digest)
            info = os.lstat(root)
            print(".", info.st_mtime_ns)
            """, library.path])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self)
    }

    /// The system calls that can change a file, traced with the paths of their descriptors
    /// (`-y`, which also names the file an open returned, even one reopened through
    /// /proc/self/fd). Writes themselves are not traced (a GTK window makes thousands): writing
    /// needs a descriptor opened for writing, and every open is traced.
    private let traced = "trace=open,openat,openat2,creat,truncate,"
        + "rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,link,linkat,symlink,symlinkat,"
        + "chmod,fchmod,fchmodat,chown,fchown,fchownat,lchown,utimensat,futimesat,utimes,setxattr,fsetxattr,lsetxattr,"
        + "removexattr,fremovexattr,lremovexattr"

    private func strace(_ trace: URL, _ arguments: [String]) -> [String] {
        ["-f", "-qq", "-y", "-s", "4096", "-e", traced, "-o", trace.path, TestSupport.photopick] + arguments
    }

    /// Lines of a trace that could change something under the library.
    private func changes(in trace: URL) throws -> [String] {
        let root = library.resolvingSymlinksInPath().path
        let text = try String(contentsOf: trace, encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { line in
            guard line.contains(root + "/") || line.contains("\"" + root + "\"") || line.contains("<" + root + ">") else { return false }
            guard let open = line.firstIndex(of: "(") else { return false }
            let call = line[..<open].split(separator: " ").last.map(String.init) ?? ""
            if ["open", "openat", "openat2"].contains(call) {
                return ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"].contains { line.contains($0) }
            }
            // Calls that change a file through any descriptor, even one opened for reading: the
            // descriptor is the first argument (`fchmod(7</path>, …`).
            let onDescriptor = ["fchmod": 0, "fchown": 0, "fsetxattr": 0, "fremovexattr": 0]
            if let position = onDescriptor[call] {
                let arguments = line[line.index(after: open)...].split(separator: ",", omittingEmptySubsequences: false)
                return arguments.count > position && arguments[position].contains("<" + root)
            }
            return true  // rename, unlink, mkdir, chmod, utimensat … naming a path there
        }
    }

    /// No session bus for the traced windows: without one GIO would autolaunch a bus and the
    /// portals, which strace -f would follow and wait for after the picker has ended.
    private let noBus = ["DBUS_SESSION_BUS_ADDRESS": "disabled:"]

    func testASessionLeavesTheLibraryExactlyAsItWas() throws {
        let before = try snapshot()
        let traces = TestSupport.temporaryDirectory("untouched-traces")
        let copies = TestSupport.temporaryDirectory("untouched-copies")
        var files: [URL] = []
        let environment = ["XDG_DATA_HOME": dataHome.path, "XDG_CACHE_HOME": cacheHome.path]
        func traced(_ name: String, _ arguments: [String]) throws {
            let trace = traces.appendingPathComponent(name)
            files.append(trace)
            let result = try TestSupport.run("/usr/bin/strace", strace(trace, arguments), environment: environment, timeout: 300)
            XCTAssertTrue([0, 1].contains(result.status), "\(name): \(result.error)")
        }
        try traced("index", ["index", "--library", library.path])
        try traced("ls", ["ls", "--json", "--library", library.path])
        try traced("albums", ["albums", "--library", library.path])
        let all = try FileManager.default.subpathsOfDirectory(atPath: library.path).sorted().map { library.appendingPathComponent($0).path }
            .filter { var isFolder: ObjCBool = false; return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
        XCTAssertGreaterThan(all.count, 30)
        try traced("thumbnail", ["thumbnail", "--"] + all)

        // The window: two picks copied out, then a cancelled one.
        let pickTrace = traces.appendingPathComponent("pick")
        files.append(pickTrace)
        let picker = try WindowProcess(display: display, executable: "/usr/bin/strace",
                                       arguments: strace(pickTrace, ["--library", library.path, "--copy-to", copies.path, "--no-camera"]),
                                       dataHome: dataHome, cacheHome: cacheHome, environment: noBus)
        try picker.keys("Right", "space", "Right", "space", "alt+Return", "Escape", "ctrl+Return")
        let picked = picker.finish(timeout: 60)
        XCTAssertEqual(picked.status, 0, picker.errorText)
        XCTAssertEqual(picked.lines.count, 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: copies.path).count, 2, "the copies went outside the library")

        let cancelTrace = traces.appendingPathComponent("cancel")
        files.append(cancelTrace)
        let cancelled = try WindowProcess(display: display, executable: "/usr/bin/strace",
                                          arguments: strace(cancelTrace, ["--library", library.path, "--no-camera"]),
                                          dataHome: dataHome, cacheHome: cacheHome, environment: noBus)
        try cancelled.keys("space", "Escape")
        XCTAssertEqual(cancelled.finish(timeout: 60).status, 1)

        // The watch itself sees a change: a process that opens a photo for writing and sets its
        // mode (to the same mode, so the snapshot stays the same) is caught twice.
        let control = traces.appendingPathComponent("control")
        let photo = try XCTUnwrap(all.first)
        let caught = try TestSupport.run("/usr/bin/strace", ["-f", "-qq", "-y", "-e", self.traced, "-o", control.path, "/usr/bin/python3", "-c",
            "import os, sys; fd = os.open(sys.argv[1], os.O_RDWR); os.fchmod(fd, os.fstat(fd).st_mode & 0o7777); os.close(fd)", photo])
        XCTAssertEqual(caught.status, 0, caught.error)
        let controlText = try String(contentsOf: control, encoding: .utf8)
        XCTAssertEqual(try changes(in: control).count, 2, controlText)

        for trace in files {
            let text = try String(contentsOf: trace, encoding: .utf8)
            // (ls and albums on an unchanged library only stat its folders: nothing to see there.)
            if !["ls", "albums"].contains(trace.lastPathComponent) {
                XCTAssertTrue(text.contains(library.resolvingSymlinksInPath().path), "\(trace.lastPathComponent): the trace saw the library being read")
            }
            XCTAssertEqual(try changes(in: trace), [], "\(trace.lastPathComponent) changed something in the library")
        }
        XCTAssertEqual(try snapshot(), before, "every file and folder as it was")
    }
}
