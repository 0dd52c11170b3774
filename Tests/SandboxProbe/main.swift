import CDecodeChannel
import Glibc

// One wall of a worker's sandbox alone, then what it lets through, tried for real: the
// sandbox tests (ThumbnailsTests/WorkerSandboxTests) start it to see that each wall holds
// without the other ("a gap in the list is not the only wall"). Prints the check's line.
//
//   sandbox-probe landlock|seccomp
let arguments = CommandLine.arguments
guard arguments.count == 2, ["landlock", "seccomp"].contains(arguments[1]) else {
    print("usage: sandbox-probe landlock|seccomp")
    exit(2)
}
_ = photopick_worker_prepare(3)
var entered = "landlock: "
if arguments[1] == "landlock" {
    let abi = photopick_worker_enter_landlock()
    entered += abi > 0 ? "on (ABI \(abi))" : "off (\(String(cString: strerror(errno))))"
} else {
    entered = photopick_worker_enter_seccomp() == 0 ? "seccomp: on" : "seccomp: off (\(String(cString: strerror(errno))))"
}
var buffer = [CChar](repeating: 0, count: 2048)
// (Its standard output stands for the channel whose fstat it checks.)
photopick_worker_check_walls(&buffer, buffer.count, 1)
let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "; " + entered + "\n"
_ = line.withCString { write(1, $0, strlen($0)) }
exit(0)
