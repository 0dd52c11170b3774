// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Glibc

/// An app that opens files by writing their paths down: a script, its desktop entry in
/// `applications` for `mimeTypes`, and (with `defaultIn`) a `mimeapps.list` in that config folder
/// making it the default for them. What the app from the menu's Open launches in the tests.
public struct FakeViewer {
    /// Where the script writes each path it is given, a line each.
    public let received: URL

    public init(in folder: URL, applications: URL, mimeTypes: [String], defaultIn config: URL? = nil) throws {
        received = folder.appendingPathComponent("arguments.txt")
        let script = folder.appendingPathComponent("fake-viewer")
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(received.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Fake Viewer\nExec=\(script.path) %F\nMimeType=\(mimeTypes.map { $0 + ";" }.joined())\n"
            .write(to: applications.appendingPathComponent("fake-viewer.desktop"), atomically: true, encoding: .utf8)
        if let config {
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try ("[Default Applications]\n" + mimeTypes.map { "\($0)=fake-viewer.desktop\n" }.joined())
                .write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        }
    }

    /// What it was given so far, once it holds `lines` lines or `seconds` have passed.
    public func arguments(waitingFor lines: Int, seconds: Double = 5) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(seconds)
        while text.split(separator: "\n").count < lines, Date() < deadline {
            usleep(100_000)
            text = (try? String(contentsOf: received, encoding: .utf8)) ?? ""
        }
        return text
    }
}
