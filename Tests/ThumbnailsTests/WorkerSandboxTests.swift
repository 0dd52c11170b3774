// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// A worker taken over by its file (issue 37): what it tries from inside its sandbox fails, it
/// holds nothing of the window's, and each of its two walls holds on its own. The attempts are
/// real calls made inside a real worker (and inside `sandbox-probe` for one wall alone), aimed
/// at the process that started it, with signal 0 and a read of a limit: they change nothing.
final class WorkerSandboxTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = TestSupport.temporaryDirectory("worker-sandbox")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// "step: what it met" of a check's line.
    private func steps(_ line: String) -> [String: String] {
        Dictionary(line.components(separatedBy: "; ").compactMap { part -> (String, String)? in
            guard let colon = part.range(of: ": ") else { return nil }
            return (String(part[..<colon.lowerBound]), String(part[colon.upperBound...]))
        }, uniquingKeysWith: { first, _ in first })
    }

    private static let reachingOut = ["open /etc/passwd", "socket", "kill the window", "tgkill the window", "prlimit the window",
                                      "stat /etc/shadow", "statx /etc/shadow", "F_SETOWN to the window", "ptrace the window",
                                      "pidfd_open the window"]

    private var probe: String {
        get throws {
            let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                              TestSupport.packageRoot.appendingPathComponent(".build/debug")]
            guard let path = candidates.map({ $0.appendingPathComponent("sandbox-probe").path })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                throw NSError(domain: "sandbox-probe is not built (swift build --build-tests builds it)", code: 1)
            }
            return path
        }
    }

    /// The worker with every loader draws SVGs, whose text needs fonts: it may read a font
    /// (where Landlock stands to keep it to the font folders), never write one, and reaches
    /// nothing else (issue 37: SVGs were drawn in a child with no walls).
    func testTheWorkerThatDrawsSVGsReadsFontsAndNothingElse() throws {
        let workers = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 1)
        let line = try XCTUnwrap(workers.checkSandbox(formats: .every))
        let found = steps(line)
        for step in Self.reachingOut { XCTAssertEqual(found[step], "Permission denied", "\(step) in \(line)") }
        XCTAssertEqual(found["write a font"], "Permission denied", line)
        XCTAssertEqual(found["sandbox"], "on", line)
        if found["landlock"]?.hasPrefix("on") == true {
            XCTAssertEqual(found["read a font"], "allowed", line)
        } else {
            XCTAssertEqual(found["read a font"], "Permission denied", "no Landlock, no file opened: \(line)")
        }
    }

    /// The probe's line, with one wall up.
    private func probeLine(_ wall: String) throws -> String {
        let result = try TestSupport.run(try probe, [wall])
        XCTAssertEqual(result.status, 0, result.error)
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testAWorkerCannotSignalLimitTraceOrStatAnythingOutsideItself() throws {
        let workers = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 1)
        let line = try XCTUnwrap(workers.checkSandbox())
        let found = steps(line)
        for step in Self.reachingOut {
            // EACCES from the filter (statx by path goes through the trapped newfstatat too).
            XCTAssertEqual(found[step], "Permission denied", "\(step) in \(line)")
        }
        XCTAssertEqual(found["fstat its channel"], "allowed", "its own descriptors still work: \(line)")
        XCTAssertEqual(found["sandbox"], "on", line)
        // Landlock, where this kernel has it (the probe says whether it does).
        let landlockAlone = try probeLine("landlock")
        if steps(landlockAlone)["landlock"]?.hasPrefix("on") == true {
            XCTAssertEqual(found["landlock"], steps(landlockAlone)["landlock"], line)
        } else {
            print("WorkerSandboxTests: this kernel has no Landlock (\(landlockAlone)): the worker says \(found["landlock"] ?? "nothing")")
            XCTAssertTrue(found["landlock"]?.hasPrefix("off (") == true, line)
        }
        // And it still decodes what it is handed, after all that.
        let path = folder.appendingPathComponent("after.png").path
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "40x30", "xc:teal", path]).status, 0)
        guard case .success(let decoded) = workers.decode(try OpenFile(path: FilePath(path)), mimeType: "image/png", fittingIn: 64,
                                                          maximumPixels: 100_000_000) else { return XCTFail("a decode after the check") }
        XCTAssertEqual([decoded.pixbuf.width, decoded.pixbuf.height], [40, 30])
    }

    /// A descriptor the window's process has open without close-on-exec (a host app's file, a
    /// terminal) is not in its workers: they hold /dev/null, their channel, their shared file and
    /// their own /proc/PID/statm.
    func testAWorkerHoldsNoDescriptorOfTheProcessThatStartedIt() throws {
        let secret = folder.appendingPathComponent("host-app-file").path
        let hostFile = open(secret, O_RDWR | O_CREAT, 0o600)  // (no O_CLOEXEC, as a careless host's)
        XCTAssertGreaterThanOrEqual(hostFile, 0)
        defer { close(hostFile) }
        let workers = DecodeWorkerPool(executable: TestSupport.photopick, maximumWorkers: 1)
        XCTAssertNotNil(workers.checkSandbox())
        let pid = try XCTUnwrap(workers.idleWorkerIDs.first)
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int32.init).sorted()
        var targets: [Int32: String] = [:]
        for fd in descriptors { targets[fd] = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?" }
        XCTAssertFalse(targets.values.contains(secret), "the worker holds the host's file: \(targets)")
        XCTAssertEqual(descriptors, [0, 1, 2, 3, 4, 5], "\(targets)")
        XCTAssertEqual([targets[0], targets[1], targets[2]], ["/dev/null", "/dev/null", "/dev/null"])
        XCTAssertTrue(targets[3]?.hasPrefix("socket:") == true, "\(targets)")
        XCTAssertTrue(targets[4]?.hasPrefix("/memfd:photopick-shared-pixels") == true, "\(targets)")
        // Its own address space, read before each decode to bound it (opened before it was shut in).
        XCTAssertEqual(targets[5], "/proc/\(pid)/statm", "\(targets)")
    }

    /// Each wall alone: Landlock (when the kernel has it) refuses every path and every signal
    /// outside; seccomp alone refuses every step.
    func testEachWallHoldsWithoutTheOther() throws {
        let seccompAlone = try probeLine("seccomp")
        let bySeccomp = steps(seccompAlone)
        XCTAssertEqual(bySeccomp["seccomp"], "on", seccompAlone)
        for step in Self.reachingOut { XCTAssertEqual(bySeccomp[step], "Permission denied", "\(step): \(seccompAlone)") }
        XCTAssertEqual(bySeccomp["fstat its channel"], "allowed", seccompAlone)

        let landlockAlone = try probeLine("landlock")
        let byLandlock = steps(landlockAlone)
        guard let state = byLandlock["landlock"], state.hasPrefix("on (ABI ") else {
            print("WorkerSandboxTests: no Landlock in this kernel (\(landlockAlone)); seccomp is the only wall")
            XCTAssertTrue(byLandlock["landlock"]?.hasPrefix("off (") == true, landlockAlone)
            return
        }
        XCTAssertEqual(byLandlock["open /etc/passwd"], "Permission denied", landlockAlone)
        let abi = Int(state.dropFirst("on (ABI ".count).prefix { $0.isNumber }) ?? 0
        if abi >= 6 {
            // Signals are scoped to the worker's own domain from ABI 6 (Linux 6.12).
            XCTAssertEqual(byLandlock["kill the window"], "Operation not permitted", landlockAlone)
            XCTAssertEqual(byLandlock["tgkill the window"], "Operation not permitted", landlockAlone)
        }
        XCTAssertEqual(byLandlock["fstat its channel"], "allowed", landlockAlone)
    }
}
