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
