// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import GObjectSupport
import Glibc

/// Command-line options through GLib's GOptionContext, so `--help`, `--opt=value`, `--` and error
/// messages follow GLib conventions. Owns the C storage GOptionContext writes into.
final class OptionParser {
    enum Kind {
        case flag, integer, string, filenames, strings
    }

    struct Option {
        let long: String
        let short: Character?
        let kind: Kind
        let description: String
        let argument: String?
        /// Accepted but left out of `--help` and the man page (zenity's options that mean
        /// nothing to a file selection, taken as zenity takes them).
        let hidden: Bool

        init(_ long: String, short: Character? = nil, _ kind: Kind, _ description: String, argument: String? = nil, hidden: Bool = false) {
            self.long = long
            self.short = short
            self.kind = kind
            self.description = description
            self.argument = argument
            self.hidden = hidden
        }
    }

    let options: [Option]
    /// What `--help` shows after the program name, and the command's one-paragraph summary.
    let parameters: String
    let summary: String
    private var storage: [UnsafeMutableRawPointer] = []
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private let context: OpaquePointer

    init(parameters: String, summary: String, options: [Option]) {
        self.options = options
        self.parameters = parameters
        self.summary = summary
        context = g_option_context_new(parameters)
        g_option_context_set_summary(context, summary)
        // --help in the person's language: GLib looks the summary, the parameters and each
        // option's description up in our catalogue (the tables mark them with N_).
        g_option_context_set_translation_domain(context, Localization.domain)
        var entries: [GOptionEntry] = []
        for option in options {
            // Every slot is 8 bytes and 8-aligned: room for a gboolean, a gint or a pointer.
            let slot = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
            let argument: GOptionArg
            switch option.kind {
            case .flag: argument = GOptionArg(0)
            case .integer: argument = GOptionArg(2)
            case .string: argument = GOptionArg(1)
            case .filenames: argument = GOptionArg(6)
            case .strings: argument = GOptionArg(5)
            }
            slot.initializeMemory(as: UInt8.self, repeating: 0, count: 8)
            // An integer left at this value was not given on the command line.
            if option.kind == .integer { slot.storeBytes(of: gint.min, as: gint.self) }
            storage.append(slot)
            entries.append(GOptionEntry(
                long_name: keep(option.long), short_name: option.short.map { CChar($0.asciiValue!) } ?? 0,
                flags: option.hidden ? gint(G_OPTION_FLAG_HIDDEN.rawValue) : 0, arg: argument, arg_data: slot, description: keep(option.description),
                arg_description: option.argument.map(keep)))
        }
        entries.append(GOptionEntry())
        // (The entries get the domain here: adding them sets their group's domain, nil or not.)
        entries.withUnsafeBufferPointer { g_option_context_add_main_entries(context, $0.baseAddress, Localization.domain) }
    }

    deinit {
        g_option_context_free(context)
        for (option, slot) in zip(options, storage) {
            switch option.kind {
            case .string: g_free(slot.load(as: UnsafeMutablePointer<gchar>?.self))
            case .filenames, .strings: g_strfreev(slot.load(as: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?.self))
            default: break
            }
            slot.deallocate()
        }
        cStrings.forEach { free($0) }
    }

    private func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        cStrings.append(copy)
        return UnsafePointer(copy)
    }

    func setDescription(_ text: String) { g_option_context_set_description(context, text) }

    /// Whether `--help` prints the help and exits the process (GLib's default). The fuzz target
    /// turns it off: a fuzzer's process must live on.
    var isHelpEnabled: Bool {
        get { g_option_context_get_help_enabled(context) != 0 }
        set { g_option_context_set_help_enabled(context, newValue ? 1 : 0) }
    }

    /// The options' help as `--help` prints it, without its "Usage:" lines.
    var optionsHelp: String {
        let text = g_option_context_get_help(context, 1, nil)!
        defer { g_free(text) }
        let lines = String(cString: text).split(separator: "\n", omittingEmptySubsequences: false)
        // From the last section's heading ("Application Options:", in the person's language).
        guard let heading = lines.lastIndex(where: { !$0.isEmpty && !$0.hasPrefix(" ") }) else { return "" }
        return lines[heading...].joined(separator: "\n")
    }

    /// Parses `arguments` (the program name first). Returns the arguments left over, or the
    /// message GLib gives for a bad option. `--help` prints and exits, as GLib does.
    func parse(_ arguments: [[UInt8]]) -> Result<[[UInt8]], ParseError> {
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { bytes in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            return copy
        }
        let originals = pointers
        defer { originals.forEach { $0?.deallocate() } }
        pointers.append(nil)
        var count = gint(arguments.count)
        var error: UnsafeMutablePointer<GError>?
        let ok = pointers.withUnsafeMutableBufferPointer { buffer -> gboolean in
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
            return g_option_context_parse(context, &count, &argv, &error)
                .also { if $0 != 0, let argv { for index in 0..<Int(count) { buffer[index] = argv[index] } } }
        }
        if ok == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "invalid arguments"
            g_clear_error(&error)
            return .failure(ParseError(message: message))
        }
        var rest = (1..<max(1, Int(count))).compactMap { index in
            pointers[index].map { pointer in Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))) }
        }
        // GLib stops reading options at "--" but leaves it in: it ends the options, it is not a
        // file (`photopick thumbnail -- -x.jpg`).
        if let end = rest.firstIndex(of: Array("--".utf8)) { rest.remove(at: end) }
        return .success(rest)
    }

    struct ParseError: Error { let message: String }

    private func slot(_ long: String) -> UnsafeMutableRawPointer {
        storage[options.firstIndex { $0.long == long }!]
    }

    func flag(_ long: String) -> Bool { slot(long).load(as: gboolean.self) != 0 }

    /// Whether the option was on the command line.
    func given(_ long: String) -> Bool {
        switch options.first(where: { $0.long == long })!.kind {
        case .flag: return flag(long)
        case .integer: return integer(long) != nil
        case .string: return string(long) != nil
        case .filenames, .strings: return !filenames(long).isEmpty
        }
    }

    /// The value, or nil when the option was not given.
    func integer(_ long: String) -> Int? {
        let value = slot(long).load(as: gint.self)
        return value == gint.min ? nil : Int(value)
    }

    func string(_ long: String) -> String? {
        slot(long).load(as: UnsafeMutablePointer<gchar>?.self).map { String(cString: $0) }
    }

    /// Every value of a repeatable string option, in order.
    func strings(_ long: String) -> [String] { filenames(long).map { String(decoding: $0, as: UTF8.self) } }

    func filenames(_ long: String) -> [[UInt8]] {
        guard let array = slot(long).load(as: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?.self) else { return [] }
        var result: [[UInt8]] = []
        var index = 0
        while let item = array[index] {
            result.append(Array(UnsafeRawBufferPointer(start: item, count: strlen(item))))
            index += 1
        }
        return result
    }
}

extension gboolean {
    func also(_ body: (gboolean) -> Void) -> gboolean { body(self); return self }
}
