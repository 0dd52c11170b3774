// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport

/// A D-Bus session bus of the test's own: nothing of the machine's session is reachable, and the
/// only services it can start are those in `serviceFolder` (so no portal or keyring daemon is
/// started behind the test's back). Stopped with the test, and every process it started with it
/// (found by a mark in their environment: they outlive the daemon otherwise).
final class PrivateSessionBus {
    let address: String
    private let daemon: Process

    init(serviceFolder: URL? = nil, environment: [String: String]) throws {
        let folder = TestSupport.temporaryDirectory("session-bus")
        let services = serviceFolder ?? folder.appendingPathComponent("no-services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("session.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(folder.path)</listen>
              <servicedir>\(services.path)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        daemon = Process()
        TestProcesses.wrap(daemon, "/usr/bin/dbus-daemon", ["--config-file", config.path, "--nofork", "--print-address=1"])
        // Every process the bus starts inherits this mark: they are found and stopped with it.
        let mark = "PHOTOPICK_PRIVATE_BUS=" + UUID().uuidString
        var marked = environment
        marked[String(mark.split(separator: "=")[0])] = String(mark.split(separator: "=")[1])
        daemon.environment = marked
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        TestProcesses.adopt(daemon) { _ in PrivateSessionBus.killProcesses(marked: mark) }
        var line = Data()
        let handle = output.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else { throw CocoaError(.fileReadUnknown) }
    }

    func stop() { TestProcesses.stop(daemon) }

    /// Kills the processes whose environment holds `mark` (those the bus started).
    private static func killProcesses(marked mark: String) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ") else { continue }
            if environment.split(separator: 0).contains(where: { $0.elementsEqual(mark.utf8) }) { kill(pid, SIGKILL) }
        }
    }
}
