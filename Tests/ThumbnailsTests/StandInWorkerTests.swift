// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc
import PhotoLibrary
import TestSupport
import XCTest
@testable import Thumbnails

/// The window's side of a decode worker taken over by its file (issue 37), against
/// `stand-in-worker`, which speaks the protocol and then misbehaves: pixels are taken only from
/// the memory the window made, and a reply cut short is given up on at the decode's deadline.
final class StandInWorkerTests: XCTestCase {
    private var folder: URL!
    private var file: OpenFile!

    override func setUpWithError() throws {
        folder = TestSupport.temporaryDirectory("stand-in-worker")
        let path = folder.appendingPathComponent("photo.png").path
        XCTAssertEqual(try TestSupport.run("/usr/bin/convert", ["-size", "40x30", "xc:teal", path]).status, 0)
        file = try OpenFile(path: FilePath(path))
    }

    override func tearDown() {
        file = nil
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func pool(_ behaviour: String, wallSeconds: Double = 60) throws -> DecodeWorkerPool {
        DecodeWorkerPool(executable: try TestSupport.standInWorker(behaviour, in: folder), maximumWorkers: 1, wallSeconds: wallSeconds)
    }

    /// A decode on another thread, given `seconds` to come back; after that its worker is killed
    /// (so that nothing is left blocked) and nil is returned.
    private func decode(with workers: DecodeWorkerPool, within seconds: Double) -> (Result<ImageDecoder.Decoded, ThumbnailFailure>, Double)? {
        final class Box: @unchecked Sendable {
            let file: OpenFile
            var result: Result<ImageDecoder.Decoded, ThumbnailFailure>?
            init(_ file: OpenFile) { self.file = file }
        }
        let box = Box(file), done = DispatchSemaphore(value: 0)
        let started = monotonicSeconds()
        Thread {
            box.result = workers.decode(box.file, mimeType: "image/png", fittingIn: 64, maximumPixels: 100_000_000)
            done.signal()
        }.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            // (Each worker killed, until the decode gives up: nothing is left waiting.)
            repeat { workers.busyWorkerIDs.forEach { kill($0, SIGKILL) } } while done.wait(timeout: .now() + 0.2) == .timedOut
            return nil
        }
        return box.result.map { ($0, monotonicSeconds() - started) }
    }

    func testAnHonestAnswerInTheSharedMemoryIsBelieved() throws {
        let workers = try pool("shared")
        guard case .success(let decoded)? = decode(with: workers, within: 20)?.0 else { return XCTFail("the stand-in's honest answer") }
        XCTAssertEqual([decoded.pixbuf.width, decoded.pixbuf.height], [4, 3])
        XCTAssertEqual(workers.statistics.replaced, 0)
    }

    /// A memory file of the worker's own, unsealed, could be cut short while the window copies
    /// it (SIGBUS): it is refused, and counted as the worker's crash.
    func testPixelsInAFileOfTheWorkersOwnAreRefusedAsItsCrash() throws {
        let workers = try pool("unsealed-file")
        let outcome = decode(with: workers, within: 20)
        guard case .failure(.undecodable(let reason))? = outcome?.0 else { return XCTFail("\(String(describing: outcome))") }
        XCTAssertEqual(reason, "the PNG decoder gave back a picture that does not hold together")
        XCTAssertEqual(workers.statistics.replaced, 1, "the worker is replaced")
        XCTAssertEqual(workers.running.values.reduce(0, +), 0, "and stopped")
    }

    /// One byte of the header, or a header announcing 4,096 bytes of text followed by 10: the
    /// decode ends at its deadline (2 s here) with the reason, and the worker is stopped.
    func testAReplyCutShortEndsAtTheDeadline() throws {
        for behaviour in ["one-byte", "short-text"] {
            let workers = try pool(behaviour, wallSeconds: 2)
            guard let (result, seconds) = decode(with: workers, within: 15) else {
                XCTFail("\(behaviour): the decode still waited after 15 s")
                continue
            }
            guard case .failure(.undecodable(let reason)) = result else {
                XCTFail("\(behaviour): \(result)")
                continue
            }
            XCTAssertEqual(reason, "the PNG decoder took longer than 2 s on this file", behaviour)
            XCTAssertLessThan(seconds, 6, behaviour)
            XCTAssertEqual(workers.running.values.reduce(0, +), 0, "\(behaviour): the worker is stopped")
        }
    }

    /// A decode past a second of processor time yields: a photo asked for meanwhile gets a
    /// worker of its own beside it, instead of waiting for the slow one (issue 37: 20 photos waited 68-89 s
    /// behind ten slow files). The extra worker goes once it is one too many.
    func testADecodePastASecondYieldsItsTurn() throws {
        let workers = try pool("slow-first")
        final class Box: @unchecked Sendable {
            let file: OpenFile
            var seconds: [Double?] = [nil, nil]
            init(_ file: OpenFile) { self.file = file }
        }
        let box = Box(file), done = DispatchGroup()
        let started = monotonicSeconds()
        // Decode `index`: the slow one first, then one asked while it runs.
        let decode = { (index: Int) in
            done.enter()
            Thread {
                if case .success = workers.decode(box.file, mimeType: "image/png", fittingIn: 64, maximumPixels: 100_000_000) {
                    box.seconds[index] = monotonicSeconds() - started
                }
                done.leave()
            }.start()
        }
        decode(0)
        while workers.busyWorkerIDs.isEmpty, monotonicSeconds() - started < 10 { usleep(10_000) }
        decode(1)
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
        let slow = try XCTUnwrap(box.seconds[0], "the slow decode"), quick = try XCTUnwrap(box.seconds[1], "the one asked meanwhile")
        XCTAssertGreaterThan(slow, 2.9, "the first worker took its 3 s of processor time")
        XCTAssertLessThan(quick, 2.2, "the second was not kept waiting behind it (\(quick) s; the slow one \(slow) s)")
        XCTAssertEqual(workers.statistics.started, 2)
        XCTAssertEqual(workers.running.values.reduce(0, +), 1, "one worker is kept, as the maximum says")
    }

    /// A worker gets its socket as descriptor 3 and its shared memory as 4 whatever numbers they
    /// have where it is started: from a process with nothing else open (`sandbox-probe start`,
    /// as a benchmark is), the shared file was descriptor 3, was overwritten by the socket, and
    /// every decode failed.
    func testAWorkerGetsItsDescriptorsWhateverTheirNumbersWhereItStarts() throws {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                          TestSupport.packageRoot.appendingPathComponent(".build/debug")]
        let probe = try XCTUnwrap(candidates.map { $0.appendingPathComponent("sandbox-probe").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }, "sandbox-probe is built by swift build --build-tests")
        let result = try TestSupport.run(probe, ["start", try TestSupport.standInWorker("report-fds", in: folder)], timeout: 30)
        XCTAssertEqual(result.status, 0, String(decoding: result.output, as: UTF8.self) + result.error)
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.hasPrefix("socket:") == true, "3 is the socket: \(lines)")
        XCTAssertTrue(lines.last?.hasPrefix("/memfd:photopick-shared-pixels") == true, "4 is the shared memory: \(lines)")
    }
}
