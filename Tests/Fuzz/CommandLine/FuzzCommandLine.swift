// SPDX-License-Identifier: GPL-3.0-or-later
import FuzzSupport
@testable import PhotopickCommands

/// A command line, as a script might write it: the input split at NUL bytes into arguments, its
/// first byte picking the command (the window's, zenity's `--file-selection`, or a script command).
/// Everything up to running the command: GLib's option parsing, then our reading of the values
/// (--max, --file-filter, --mime-type, --separator, --attach …). Nothing is run.
// SwiftPM links an executable's main to `<module>_main`.
@_cdecl("fuzz_command_line_main")
public func main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, { data, size in fuzzCommandLine(data, size) })
}

func fuzzCommandLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    guard let selector = input.first else { return 0 }
    var arguments = input.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    let choice = Int(selector) % 8
    MainActor.assumeIsolated {
        switch choice {
        case 0, 1:
            if choice == 1 { arguments.insert(Array("--file-selection".utf8), at: 0) }
            let parser = PickRequest.parser()
            parser.isHelpEnabled = false
            if case .success(let rest) = parser.parse([Array("photopick".utf8)] + arguments) {
                _ = try? PickRequest(parser: parser, rest: rest)
            }
        default:
            let command = commands[(choice - 2) % commands.count]
            let parser = command.options()
            parser.isHelpEnabled = false
            _ = parser.parse([Array("photopick \(command.name)".utf8)] + arguments)
        }
    }
    return 0
}
