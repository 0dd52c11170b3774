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
        let of = total > 0 ? " of \(groupedDigits(total))" : ""
        let rate = progress.elapsedSeconds > 0.5 ? ", \(groupedDigits(Int(progress.filesPerSecond))) files/s" : ""
        writeError("\r\u{1B}[KIndexing \(bar)\(groupedDigits(progress.filesIndexed))\(of) files\(rate)")
        drewBar = true
    }

    private func warnLine(_ progress: ScanProgress) {
        let state = progress.finished ? "indexed" : "indexing:"
        writeError("photopick: \(state) \(groupedDigits(progress.filesIndexed)) of \(groupedDigits(progress.filesSeen)) files seen, "
                   + "\(groupedDigits(progress.filesRead)) read, \(groupedDigits(Int(progress.filesPerSecond))) files/s\n")
    }
}

func writeError(_ text: String) {
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
}

import Glibc
