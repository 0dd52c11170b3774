// SPDX-License-Identifier: GPL-3.0-or-later
import CDecodeChannel
import Glibc
import PhotoLibrary

// What a worker meets, from a process of its own (the sandbox and stand-in worker tests start it):
//
//   sandbox-probe landlock|seccomp
//       One wall of a worker's sandbox alone, then what it lets through, tried for real, to see
//       that each wall holds without the other ("a gap in the list is not the only wall").
//       Prints the check's line.
//   sandbox-probe start EXECUTABLE
//       Starts EXECUTABLE as a decode worker from a process with nothing open but 0-2 (as a
//       benchmark is), its shared memory file then being descriptor 3, and prints what the worker
//       writes on its channel (the stand-in worker's report-fds: what its 3 and 4 are).
let arguments = CommandLine.arguments
func say(_ line: String) { _ = (line + "\n").withCString { write(1, $0, strlen($0)) } }

if arguments.count == 3, arguments[1] == "start" {
    // (Everything from 3 on closed: the shared file is made as descriptor 3.)
    for fd in Int32(3)..<1024 { close(fd) }
    let shared = photopick_shared_pixels_file(4096)
    guard shared == 3 else { say("the shared file is descriptor \(shared), not 3"); exit(1) }
    guard case .success(let worker) = WorkerProcess.start(arguments[2], ["decode-worker"], sharedFiles: [shared]) else {
        say("cannot start \(arguments[2])")
        exit(1)
    }
    var bytes = [UInt8](repeating: 0, count: 512)
    var received = 0
    while received < bytes.count {
        let count = bytes.withUnsafeMutableBytes { read(worker.socket, $0.baseAddress! + received, $0.count - received) }
        if count <= 0 { break }
        received += count
    }
    worker.stop()
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, received) }
    exit(0)
}

guard arguments.count == 2, ["landlock", "seccomp"].contains(arguments[1]) else {
    say("usage: sandbox-probe landlock|seccomp | sandbox-probe start EXECUTABLE")
    exit(2)
}
_ = photopick_worker_prepare(3)
var entered = "landlock: "
if arguments[1] == "landlock" {
    let abi = photopick_worker_enter_landlock()
    entered += abi > 0 ? "on (ABI \(abi))" : "off (\(String(cString: strerror(errno))))"
} else {
    entered = photopick_worker_enter_seccomp(0) == 0 ? "seccomp: on" : "seccomp: off (\(String(cString: strerror(errno))))"
}
var buffer = [CChar](repeating: 0, count: 2048)
// (Its standard output stands for the channel whose fstat it checks.)
photopick_worker_check_walls(&buffer, buffer.count, 1)
say(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "; " + entered)
exit(0)
