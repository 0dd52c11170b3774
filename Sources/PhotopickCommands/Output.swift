// SPDX-License-Identifier: GPL-3.0-or-later
import GObjectSupport
import Glibc
import PhotoLibrary

/// Buffered writing of raw bytes to standard output (paths are bytes, not strings).
struct StandardOutput {
    private var buffer: [UInt8] = []
    /// Whether any output reached standard output (a command that failed before may run again).
    nonisolated(unsafe) static var hasWritten = false

    init() { buffer.reserveCapacity(1 << 16) }

    mutating func write(_ bytes: [UInt8]) {
        buffer += bytes
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func write(_ text: String) { write(Array(text.utf8)) }

    mutating func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(0) }  // a closed pipe (`| head`) is not an error
                // A full disk or a closed descriptor: said, so a script's log shows why.
                warn(i18n("cannot write the output: {reason}", ["reason": errorDescription(errno)]))
                exit(1)
            }
            offset += written
            StandardOutput.hasWritten = true
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A name or path as one line of text: control characters (a newline, an escape sequence a
/// terminal would obey) are written as \n, \t, \x1b, and a backslash as \\. For output that
/// is read line by line; -0 and --json keep names exactly.
func escapedForLine(_ bytes: [UInt8]) -> [UInt8] {
    guard bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return bytes }
    var result: [UInt8] = []
    for byte in bytes {
        switch byte {
        case UInt8(ascii: "\n"): result += Array("\\n".utf8)
        case UInt8(ascii: "\t"): result += Array("\\t".utf8)
        case UInt8(ascii: "\\"): result += Array("\\\\".utf8)
        case 0..<0x20, 0x7F:
            let hex = String(byte, radix: 16)
            result += Array(("\\x" + (hex.count == 1 ? "0" : "") + hex).utf8)
        default: result.append(byte)
        }
    }
    return result
}

/// One line on standard error, prefixed with the program name; a file name or an option's value
/// in it cannot set the terminal's title or clear it (its control characters are escaped).
func warn(_ message: String) {
    let line = "photopick: \(message.escapedForTerminal)\n"
    _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
}

/// Whether `notice` says anything (`--verbose`). zenity's stderr is silent about what it works
/// around, and a script's log should be too (issue 40, point 4).
nonisolated(unsafe) var saysNotices = false

/// A line about something worked around (a `--filename` that is not there yet), for `--verbose`.
func notice(_ message: String) {
    if saysNotices { warn(message) }
}

var standardErrorIsTerminal: Bool { isatty(2) != 0 }

/// A JSON object written field by field, without Foundation.
struct JSONObject {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String?) { fields.append("\(quote(key)):\(value.map(quote) ?? "null")") }
    mutating func add(_ key: String, _ value: Int?) { fields.append("\(quote(key)):\(value.map(String.init) ?? "null")") }
    mutating func add(_ key: String, _ value: Int64?) { fields.append("\(quote(key)):\(value.map(String.init) ?? "null")") }
    mutating func add(_ key: String, _ value: Bool) { fields.append("\(quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Double?) {
        let text = value.map { $0.isFinite ? String(($0 * 1000).rounded() / 1000) : "null" } ?? "null"
        fields.append("\(quote(key)):\(text)")
    }
    mutating func add(_ key: String, strings: [String]) {
        fields.append("\(quote(key)):[\(strings.map(quote).joined(separator: ","))]")
    }

    /// A value that is already JSON (a nested array or object).
    mutating func add(raw key: String, _ json: String) { fields.append("\(quote(key)):\(json)") }

    var text: String { "{" + fields.joined(separator: ",") + "}" }
}

/// A JSON string literal.
func quote(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}


/// Standard base64, for paths that are not valid UTF-8 in JSON output.
func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
        let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
        for position in 0..<4 {
            output.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
        }
        index += 3
    }
    return String(decoding: output, as: UTF8.self)
}
