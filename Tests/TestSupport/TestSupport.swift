// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary

/// Paths and helpers shared by the tests.
public enum TestSupport {
    /// The package's top folder (Tests/PhotoLibraryTests/TestSupport.swift is two levels down).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The library generator the tests use: the project's own `Tests/Generator/make-test-library`,
    /// or the program PHOTOPICK_MAKE_LIBRARY names (same options, same manifest shape).
    public static var makeLibrary: String {
        ProcessInfo.processInfo.environment["PHOTOPICK_MAKE_LIBRARY"]
            ?? packageRoot.appendingPathComponent("Tests/Generator/make-test-library").path
    }

    /// The workspace's `../shared/tools/make-library` beside the checkout, when it is there: a second,
    /// independently written generator some tests also check the index against. Nil, with the reason,
    /// in a fresh clone.
    public static var workspaceMakeLibrary: (path: String?, reason: String) {
        let path = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/tools/make-library").path
        if FileManager.default.isExecutableFile(atPath: path) { return (path, "") }
        return (nil, "no \(path) beside this checkout (it exists only in the original workspace)")
    }

    /// The built `photopick` executable, next to the test bundle.
    public static var photopick: String {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                          packageRoot.appendingPathComponent(".build/debug")]
        for directory in candidates {
            let path = directory.appendingPathComponent("photopick").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot.appendingPathComponent(".build/debug/photopick").path
    }

    /// A program to start in place of photopick-worker: `Tests/StandInWorker/stand-in-worker`, a
    /// worker taken over by its file that speaks the workers' protocol and then misbehaves as
    /// `behaviour` says (its comment lists them). Written into `folder` as a small script.
    public static func standInWorker(_ behaviour: String, in folder: URL) throws -> String {
        let script = packageRoot.appendingPathComponent("Tests/StandInWorker/stand-in-worker").path
        let path = folder.appendingPathComponent("stand-in-\(behaviour)").path
        // (The marker tells the first process of a pool from the next, for "exit-once" and "slow-first".)
        let marker = folder.appendingPathComponent("stand-in-\(behaviour).started").path
        try "#!/bin/sh\nPHOTOPICK_STAND_IN_MARKER='\(marker)' exec /usr/bin/python3 '\(script)' \(behaviour) \"$@\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// The folder that holds every temporary folder of this test run.
    public static let temporaryBase = FileManager.default.temporaryDirectory.appendingPathComponent("photopick-tests-\(getpid())")

    /// Removes the run's temporary folders when the test process ends (generated libraries hold
    /// mode-000 files and folders, so permissions are restored first).
    private static let cleanup: Void = {
        atexit {
            let base = TestSupport.temporaryBase.path
            _ = system("chmod -R u+rwx '\(base)' 2>/dev/null; rm -rf '\(base)'")
        }
    }()

    public static func temporaryDirectory(_ name: String) -> URL {
        _ = cleanup
        let url = temporaryBase.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Starts photopick with `arguments`, kills it with SIGKILL after `delay` seconds (a crash or a
    /// power cut at that moment), and waits for it. True when the kill ended it, false when it
    /// had already finished.
    @discardableResult
    public static func photopickKilled(_ arguments: [String], environment: [String: String], after delay: TimeInterval) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: photopick)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(UInt32(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    /// Writes `date` ("2024:05:01 12:00:00") as a photo's EXIF DateTimeOriginal with exiftool
    /// (Pillow 9.4 writes no EXIF sub-directory); nil when done, else exiftool's complaint.
    public static func setCaptureDate(_ date: String, of path: String) throws -> String? {
        let result = try run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=\(date)", path])
        return result.status == 0 ? nil : "exiftool \(result.status): \(result.error)"
    }

    /// Runs a program from argv (no shell) and returns its exit status, standard output and error.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: TimeInterval = 300) throws -> (status: Int32, output: Data, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Read both pipes while the process runs so a full pipe cannot block it.
        final class Collected: @unchecked Sendable { var output = Data(), error = Data() }
        let collected = Collected()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { collected.output = output.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { collected.error = error.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, collected.output, String(decoding: collected.error, as: UTF8.self))
    }
}

/// A library written by a generator (the project's by default) and its manifest.
public final class GeneratedLibrary: @unchecked Sendable {
    public let root: URL
    public let summary: [String: Any]
    public let files: [[String: Any]]
    /// The program that wrote it.
    public let generator: String

    /// The library most tests share, made once per test process.
    public static let shared: GeneratedLibrary = {
        do { return try GeneratedLibrary(count: 1200) } catch { fatalError("\(TestSupport.makeLibrary) failed: \(error)") }
    }()

    public init(count: Int, generator: String = TestSupport.makeLibrary) throws {
        self.generator = generator
        let directory = TestSupport.temporaryDirectory("library")
        root = directory.appendingPathComponent("Pictures")
        let manifest = directory.appendingPathComponent("manifest.json")
        let result = try TestSupport.run(generator, ["--out", root.path, "-n", String(count), "--seed", "7",
                                                     "--manifest", manifest.path, "--force"])
        guard result.status == 0 else {
            throw NSError(domain: generator, code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.error])
        }
        // Some generators write undecodable name bytes as lone surrogate escapes, which Foundation
        // rejects; those entries carry "path_b64" with the exact bytes, so the text form can be replaced.
        var text = try String(contentsOf: manifest, encoding: .utf8)
        let loneSurrogate = try NSRegularExpression(pattern: #"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"#)
        text = loneSurrogate.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: #"\\ufffd"#)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        summary = json["summary"] as! [String: Any]
        files = json["files"] as! [[String: Any]]
    }

    public var rootPath: FilePath { FilePath(root.path) }

    /// The absolute path of a manifest entry, as bytes (some names are not UTF-8).
    public func path(of file: [String: Any]) -> FilePath {
        if let encoded = file["path_b64"] as? String, let data = Data(base64Encoded: encoded) {
            return rootPath.appending(Array(data))
        }
        return rootPath.appending(file["path"] as! String)
    }

    public func paths(where predicate: ([String: Any]) -> Bool) -> Set<FilePath> {
        Set(files.filter(predicate).map(path(of:)))
    }

    public var corruptPaths: Set<FilePath> { paths { $0["kind"] as? String == "corrupt" } }

    public static let okKinds: Set<String> = ["photo", "selfie", "panorama", "burst", "live_photo", "live_video", "screenshot",
                                       "animated", "static_anim_format", "video", "noexif", "wallpaper", "weird_name",
                                       "no_date", "bad_date", "future_date", "old_mtime", "dup_bytes", "ext_mismatch",
                                       "big", "tiny", "cmyk", "gray", "progressive", "rgba_png", "tiff",
                                       // Running as root, chmod 000 does not stop reads (the manifest's "root" rule).
                                       "unreadable", "in_unreadable_dir"]
}

extension PhotoLibrary {
    /// The paths of an album's assets, in order.
    public func paths(in album: Album) throws -> [FilePath] {
        let result = try fetchAssets(in: album)
        return try assets(ids: result.allIDs).map(\.path)
    }
}
