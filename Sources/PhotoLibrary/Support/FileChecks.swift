// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

extension FilePath {
    /// Whether the path names a folder (following a link, as a path given by a person may be one).
    public var isDirectory: Bool { fileType == S_IFDIR }

    /// Whether the path names a regular file.
    public var isRegularFile: Bool { fileType == S_IFREG }

    private var fileType: mode_t? {
        var info = stat()
        return withCString { stat($0, &info) } == 0 ? info.st_mode & S_IFMT : nil
    }
}

/// A count for people, with thousands separators: "60,000".
public func groupedDigits(_ value: Int) -> String {
    let digits = String(abs(value))
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
        result.append(character)
    }
    return (value < 0 ? "-" : "") + result
}
