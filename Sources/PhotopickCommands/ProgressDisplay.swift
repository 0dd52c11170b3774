// SPDX-License-Identifier: GPL-3.0-or-later
import GObjectSupport
import PhotoLibrary

/// Scan progress on standard error: a bar redrawn in place on a terminal, plain lines (one every
/// few seconds) when standard error is a file or a pipe.
final class ProgressDisplay {
    private let isTerminal: Bool
    private let expectedFiles: Int?
    private var lastLine = 0.0
    private var drewBar = false

    init(expectedFiles: Int?, isTerminal: Bool = standardErrorIsTerminal) {
        self.expectedFiles = expectedFiles
        self.isTerminal = isTerminal
    }

    func update(_ progress: ScanProgress) {
        if isTerminal {
            drawBar(progress)
        } else if progress.finished || progress.elapsedSeconds - lastLine >= 2 {
            lastLine = progress.elapsedSeconds
            warnLine(progress)
        }
    }

    /// Clears the bar so that what follows starts on a clean line.
    func finish() {
        if drewBar { writeError("\r\u{1B}[K") }
    }

    private func drawBar(_ progress: ScanProgress) {
        let total = max(progress.filesSeen, expectedFiles ?? 0)
        let width = 28
        var bar = ""
        if total > 0 {
            let filled = min(width, progress.filesIndexed * width / total)
            bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
        }
        let done = Localization.number(progress.filesIndexed)
        let count = total > 0 ? i18n("{done} of {total} files", ["done": done, "total": Localization.number(total)])
            : i18n("{done} files", ["done": done])
        let rate = progress.elapsedSeconds > 0.5 ? ", " + i18n("{rate} files/s", ["rate": Localization.number(Int(progress.filesPerSecond))]) : ""
        writeError("\r\u{1B}[K" + i18n("Indexing {bar}{count}", ["bar": bar, "count": count]) + rate)
        drewBar = true
    }

    private func warnLine(_ progress: ScanProgress) {
        let values = ["done": Localization.number(progress.filesIndexed), "seen": Localization.number(progress.filesSeen),
                      "read": Localization.number(progress.filesRead), "rate": Localization.number(Int(progress.filesPerSecond))]
        let line = progress.finished
            ? i18n("indexed {done} of {seen} files seen, {read} read, {rate} files/s", values)
            : i18n("indexing: {done} of {seen} files seen, {read} read, {rate} files/s", values)
        writeError("photopick: " + line + "\n")
    }
}

func writeError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
}

import Glibc
