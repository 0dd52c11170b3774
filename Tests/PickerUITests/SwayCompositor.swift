// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// sway running headless (no display, no input devices, the pixman renderer), for what only a
/// Wayland compositor shows: where a window goes (floating over its parent), what its clients
/// export. sway refuses to run as root: as root (CI), it runs as nobody, in a runtime folder of
/// its own that only nobody owns (root's clients reach it anyway). Stopped with its test.
final class SwayCompositor {
    let runtime: URL
    let socket = "wayland-1"
    private(set) var ipc = ""
    private let process: Process

    static let executable = "/usr/bin/sway"

    init() throws {
        let folder = TestSupport.temporaryDirectory("sway")
        runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = folder.appendingPathComponent("config")
        try "xwayland disable\ndefault_border none\n".write(to: config, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config.path)
        let asNobody = getuid() == 0
        if asNobody { _ = runtime.path.withCString { chown($0, 65534, 65534) } }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // (The parent-death signal after the change of user: a change of credentials clears it.)
        process.arguments = (asNobody ? ["--reuid=65534", "--regid=65534", "--clear-groups"] : []) + ["--pdeathsig", "KILL", "--", Self.executable, "-c", config.path]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": folder.path, "XDG_RUNTIME_DIR": runtime.path, "WLR_BACKENDS": "headless",
                               "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "WLR_HEADLESS_OUTPUTS": "1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        TestProcesses.adopt(process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []
            if names.contains(socket), let found = names.first(where: { $0.hasPrefix("sway-ipc.") }) {
                ipc = runtime.appendingPathComponent(found).path
                return
            }
            usleep(50_000)
        }
        TestProcesses.stop(process)
        throw XCTSkip("sway did not start")
    }

    deinit { TestProcesses.stop(process) }

    /// What a client needs to reach this compositor (and nothing of an X display).
    func clientEnvironment(_ base: [String: String]) -> [String: String] {
        var environment = base
        environment.removeValue(forKey: "DISPLAY")
        environment["WAYLAND_DISPLAY"] = socket
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["GDK_BACKEND"] = "wayland"
        return environment
    }

    /// sway's tree of windows (swaymsg -t get_tree).
    func tree() throws -> [String: Any] {
        let result = try TestSupport.run("/usr/bin/swaymsg", ["-s", ipc, "-t", "get_tree", "-r"])
        return (try JSONSerialization.jsonObject(with: result.output) as? [String: Any]) ?? [:]
    }

    /// The windows (views) by title, each with whether it floats and its rectangle.
    func windows() throws -> [(name: String, floating: Bool, rect: (x: Int, y: Int, width: Int, height: Int))] {
        var found: [(String, Bool, (Int, Int, Int, Int))] = []
        func walk(_ node: [String: Any], floating: Bool) {
            if node["pid"] != nil, let name = node["name"] as? String, let rect = node["rect"] as? [String: Int] {
                found.append((name, floating, (rect["x"] ?? 0, rect["y"] ?? 0, rect["width"] ?? 0, rect["height"] ?? 0)))
            }
            for child in node["nodes"] as? [[String: Any]] ?? [] { walk(child, floating: floating) }
            for child in node["floating_nodes"] as? [[String: Any]] ?? [] { walk(child, floating: true) }
        }
        walk(try tree(), floating: false)
        return found.map { (name: $0.0, floating: $0.1, rect: (x: $0.2.0, y: $0.2.1, width: $0.2.2, height: $0.2.3)) }
    }
}

extension SwayCompositor {
    /// A pixel of the screen (grim), as red, green, blue.
    func pixel(x: Int, y: Int) throws -> (Int, Int, Int)? {
        let shot = try TestSupport.run("/usr/bin/grim", ["-g", "\(x),\(y) 1x1", "-t", "ppm", "-"],
                                       environment: ["XDG_RUNTIME_DIR": runtime.path, "WAYLAND_DISPLAY": socket])
        let bytes = [UInt8](shot.output)
        guard bytes.count >= 3 else { return nil }
        return (Int(bytes[bytes.count - 3]), Int(bytes[bytes.count - 2]), Int(bytes[bytes.count - 1]))
    }

    /// Waits until the screen shows a test photo's orange at `point` (a picker's first screen).
    func waitForPhoto(at point: (Int, Int), timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let (red, green, blue) = try pixel(x: point.0, y: point.1), abs(red - 200) < 30, abs(green - 120) < 30, blue < 70 { return }
            usleep(200_000)
        }
        XCTFail("no photo at \(point) after \(timeout) s")
    }

    /// The window titled `name`, once sway shows it.
    func waitForWindow(_ name: String, timeout: TimeInterval = 20) throws -> (x: Int, y: Int, width: Int, height: Int)? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let found = try windows().first(where: { $0.name == name }) { return found.rect }
            usleep(200_000)
        }
        return nil
    }
}

/// A pointer under sway headless, which has none: Tests/Portal/virtual-pointer (a wlr virtual
/// pointer), built here once with wayland-scanner and gcc, driven by lines on its input.
final class VirtualPointer {
    private let process: Process
    private let input = Pipe()
    private let output = Pipe()

    /// Builds the program (once per test process); nil with the reason when it cannot be.
    static let program: Result<String, Error> = Result {
        let source = TestSupport.packageRoot.appendingPathComponent("Tests/Portal/virtual-pointer")
        let folder = TestSupport.temporaryDirectory("virtual-pointer")
        let xml = source.appendingPathComponent("wlr-virtual-pointer-unstable-v1.xml").path
        let header = folder.appendingPathComponent("wlr-virtual-pointer-unstable-v1-client-protocol.h").path
        let code = folder.appendingPathComponent("wlr-virtual-pointer-protocol.c").path
        let binary = folder.appendingPathComponent("virtual-pointer").path
        for step in [["/usr/bin/wayland-scanner", "client-header", xml, header], ["/usr/bin/wayland-scanner", "private-code", xml, code]] {
            let result = try TestSupport.run(step[0], Array(step.dropFirst()))
            guard result.status == 0 else { throw NSError(domain: "VirtualPointer", code: 1, userInfo: [NSLocalizedDescriptionKey: result.error]) }
        }
        let flags = try TestSupport.run("/usr/bin/pkg-config", ["--cflags", "--libs", "wayland-client"])
        let built = try TestSupport.run("/usr/bin/gcc", ["-O1", "-o", binary, "-I", folder.path, source.appendingPathComponent("virtual-pointer.c").path, code]
                                        + String(decoding: flags.output, as: UTF8.self).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty })
        guard built.status == 0 else { throw NSError(domain: "VirtualPointer", code: 2, userInfo: [NSLocalizedDescriptionKey: built.error]) }
        return binary
    }

    init(_ sway: SwayCompositor, width: Int = 1280, height: Int = 720) throws {
        process = TestProcesses.process(try Self.program.get(), [String(width), String(height)])
        process.environment = ["XDG_RUNTIME_DIR": sway.runtime.path, "WAYLAND_DISPLAY": sway.socket]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        TestProcesses.adopt(process)
    }

    deinit { TestProcesses.stop(process) }

    /// Sends one line and waits for its "ok" (the compositor has it).
    private func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        var reply = Data()
        while !reply.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return }
            reply += chunk
        }
    }

    func move(_ x: Int, _ y: Int) { send("move \(x) \(y)"); usleep(40_000) }

    /// A click, and a pause longer than GTK's double-click time (400 ms): two clicks on two
    /// photos in quick succession are a double click, which opens the preview.
    func click(_ x: Int, _ y: Int) {
        move(x, y)
        send("press")
        usleep(50_000)
        send("release")
        usleep(600_000)
    }

    /// Presses at `from`, moves there in steps as a hand does, and releases at `to`.
    func drag(from: (Int, Int), to: (Int, Int), steps: Int = 12) {
        move(from.0, from.1)
        send("press")
        usleep(100_000)
        for step in 1...steps {
            move(from.0 + (to.0 - from.0) * step / steps, from.1 + (to.1 - from.1) * step / steps)
        }
        usleep(200_000)
        move(to.0 + 2, to.1 + 2)
        usleep(200_000)
        send("release")
        usleep(500_000)
    }
}
