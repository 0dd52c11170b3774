// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib

/// One call of `org.freedesktop.impl.portal.FileChooser` as the backend reads it: the method, the
/// request's handle and the options, typed. A value: routing, the picker window and the answer
/// each read it, and tests build one without D-Bus.
///
/// The frontend (xdg-desktop-portal 1.16) checks the options' types and drops unknown keys before
/// they get here, but anything on the bus may call a backend directly: `init(parameters:method:)`
/// trusts nothing and says what is wrong in a sentence for the log.
public struct ChooserQuestion: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case openFile = "OpenFile", saveFile = "SaveFile", saveFiles = "SaveFiles"
    }

    /// A filter of the chooser's list, `(sa(us))`: a name and rules, any one of which admits a
    /// file (0: a shell pattern such as `*.[jJ][pP][gG]`, GTK's way of writing a suffix; 1: a MIME
    /// type such as `image/*`).
    public struct Filter: Equatable, Sendable {
        public enum Rule: Equatable, Sendable {
            case pattern(String)
            case mimeType(String)
        }
        public var name: String
        public var rules: [Rule]
        public init(name: String, rules: [Rule]) {
            self.name = name
            self.rules = rules
        }
    }

    /// A choice beside the chooser, `(ssa(ss)s)`: a list of options (a drop-down), or none (a
    /// check button whose value is "true" or "false").
    public struct Choice: Equatable, Sendable {
        public var id: String
        public var label: String
        public var options: [(id: String, label: String)]
        /// The option chosen at first ("" for the first one, or "false" for a check button).
        public var selected: String

        public init(id: String, label: String, options: [(id: String, label: String)], selected: String) {
            self.id = id
            self.label = label
            self.options = options
            self.selected = selected
        }

        public static func == (a: Choice, b: Choice) -> Bool {
            a.id == b.id && a.label == b.label && a.selected == b.selected
                && a.options.map(\.id) == b.options.map(\.id) && a.options.map(\.label) == b.options.map(\.label)
        }

        /// The value answered when the person left it as it was.
        public var initialValue: String {
            if options.isEmpty { return selected == "true" ? "true" : "false" }
            return options.contains { $0.id == selected } ? selected : options[0].id
        }
    }

    /// The window the chooser belongs to: `x11:` and a hexadecimal XID, `wayland:` and an
    /// xdg-foreign handle, or none (an empty string, or anything else, which is logged).
    public enum Parent: Equatable, Sendable {
        case none
        case x11(UInt)
        case wayland(String)
        case unknown(String)

        public init(_ text: String) {
            if text.isEmpty {
                self = .none
            } else if text.hasPrefix("x11:") {
                // (GTK writes "x11:%x"; strtoul would also take "0x", "-" and spaces.)
                let digits = text.dropFirst(4)
                if !digits.isEmpty, digits.count <= 16, digits.allSatisfy(\.isHexDigit), let xid = UInt(digits, radix: 16), xid != 0 {
                    self = .x11(xid)
                } else {
                    self = .unknown(text)
                }
            } else if text.hasPrefix("wayland:"), text.count > 8, text.count < 512 {
                self = .wayland(String(text.dropFirst(8)))
            } else {
                self = .unknown(text)
            }
        }
    }

    public var method: Method
    /// The request's object path, where the backend exports its `Request` (and the frontend
    /// calls `Close`).
    public var handle: String
    /// The calling app's id: "" for an app that is not sandboxed (xdg-desktop-portal 1.16).
    public var appID: String
    public var parent: Parent
    public var title: String
    public var acceptLabel: String?
    public var modal = true
    public var multiple = false
    /// OpenFile for a folder.
    public var directory = false
    public var filters: [Filter] = []
    /// The filter to show at first: one of `filters` (matched by name), or alone the only filter.
    public var currentFilter: Filter?
    public var choices: [Choice] = []
    /// Where to start (xdg-desktop-portal 1.17 and direct callers send it for OpenFile too).
    public var currentFolder: [UInt8]?
    /// SaveFile's proposed name and file.
    public var currentName: String?
    public var currentFile: [UInt8]?

    public init(method: Method, handle: String, appID: String = "", parent: Parent = .none, title: String = "") {
        self.method = method
        self.handle = handle
        self.appID = appID
        self.parent = parent
        self.title = title
    }

    /// The filters the person chooses from: `filters`, or `current_filter` alone when there are
    /// none (as the spec says), and the one shown at first.
    public var offeredFilters: (list: [Filter], first: Int?) {
        if filters.isEmpty { return currentFilter.map { ([$0], 0) } ?? ([], nil) }
        let first = currentFilter.flatMap { current in filters.firstIndex(of: current) ?? filters.firstIndex { $0.name == current.name } }
        return (filters, first ?? 0)
    }
}

/// Why a call cannot be answered as asked, in a sentence for the log.
public struct ChooserQuestionError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
    public init(reason: String) { self.reason = reason }
}

// MARK: Reading a call

extension ChooserQuestion {
    /// The longest title a window is given (a 100 KB title would make a header GTK lays out for
    /// seconds); longer ones are cut, and the full one logged.
    static let longestTitle = 500
    /// More filters than a person can read in a list: the call is refused.
    static let mostFilters = 500
    static let mostRules = 1000

    /// Reads `(osssa{sv})` (`handle`, `app_id`, `parent_window`, `title`, `options`).
    public init(parameters: OpaquePointer, method: Method) throws(ChooserQuestionError) {
        guard String(cString: g_variant_get_type_string(parameters)) == "(osssa{sv})" else {
            throw ChooserQuestionError(reason: "\(method.rawValue): parameters of type \(String(cString: g_variant_get_type_string(parameters))), not (osssa{sv})")
        }
        func child(_ index: Int) -> OpaquePointer { g_variant_get_child_value(parameters, gsize(index)) }
        func string(_ index: Int) -> String {
            let value = child(index)
            defer { g_variant_unref(value) }
            return String(cString: g_variant_get_string(value, nil))
        }
        self.init(method: method, handle: string(0), appID: string(1), parent: Parent(string(2)), title: string(3))
        if title.count > Self.longestTitle { title = String(title.prefix(Self.longestTitle)) + "…" }
        let options = child(4)
        defer { g_variant_unref(options) }
        try read(options)
    }

    private mutating func read(_ options: OpaquePointer) throws(ChooserQuestionError) {
        let reader = OptionReader(options: options, method: method)
        acceptLabel = try reader.string("accept_label")
        modal = try reader.boolean("modal") ?? true
        multiple = try reader.boolean("multiple") ?? false
        directory = try reader.boolean("directory") ?? false
        if method != .openFile {
            multiple = false
            directory = false
        }
        if let list = try reader.value("filters", type: "a(sa(us))") {
            defer { g_variant_unref(list) }
            let count = g_variant_n_children(list)
            guard count <= Self.mostFilters else { throw ChooserQuestionError(reason: "\(count) filters: more than \(Self.mostFilters)") }
            for index in 0..<count {
                let filter = g_variant_get_child_value(list, index)!
                defer { g_variant_unref(filter) }
                filters.append(try Self.filter(filter))
            }
        }
        if let filter = try reader.value("current_filter", type: "(sa(us))") {
            defer { g_variant_unref(filter) }
            currentFilter = try Self.filter(filter)
        }
        if let list = try reader.value("choices", type: "a(ssa(ss)s)") {
            defer { g_variant_unref(list) }
            for index in 0..<g_variant_n_children(list) {
                let choice = g_variant_get_child_value(list, index)!
                defer { g_variant_unref(choice) }
                choices.append(try Self.choice(choice))
            }
        }
        currentFolder = try reader.bytes("current_folder")
        currentFile = try reader.bytes("current_file")
        currentName = try reader.string("current_name")
    }

    /// One `(sa(us))`, checked as the frontend checks it: a name, at least one rule, each rule a
    /// pattern (0) or a MIME type (1) that is not empty.
    static func filter(_ value: OpaquePointer) throws(ChooserQuestionError) -> Filter {
        let name = OptionReader.string(child: 0, of: value)
        guard !name.isEmpty else { throw ChooserQuestionError(reason: "a filter without a name") }
        let list = g_variant_get_child_value(value, 1)!
        defer { g_variant_unref(list) }
        let count = g_variant_n_children(list)
        guard count > 0 else { throw ChooserQuestionError(reason: "filter “\(name)” has no rule") }
        guard count <= mostRules else { throw ChooserQuestionError(reason: "filter “\(name)” has \(count) rules: more than \(mostRules)") }
        var rules: [Filter.Rule] = []
        for index in 0..<count {
            let rule = g_variant_get_child_value(list, index)!
            defer { g_variant_unref(rule) }
            let kind = g_variant_get_child_value(rule, 0)!
            let number = g_variant_get_uint32(kind)
            g_variant_unref(kind)
            let text = OptionReader.string(child: 1, of: rule)
            guard !text.isEmpty else { throw ChooserQuestionError(reason: "filter “\(name)” has an empty rule") }
            switch number {
            case 0: rules.append(.pattern(text))
            case 1: rules.append(.mimeType(text))
            default: throw ChooserQuestionError(reason: "filter “\(name)”: rule kind \(number) is neither a pattern (0) nor a MIME type (1)")
            }
        }
        return Filter(name: name, rules: rules)
    }

    /// One `(ssa(ss)s)`, checked as the frontend checks it.
    static func choice(_ value: OpaquePointer) throws(ChooserQuestionError) -> Choice {
        let id = OptionReader.string(child: 0, of: value), label = OptionReader.string(child: 1, of: value)
        guard !id.isEmpty, !label.isEmpty else { throw ChooserQuestionError(reason: "a choice without an id or a label") }
        let list = g_variant_get_child_value(value, 2)!
        defer { g_variant_unref(list) }
        var options: [(id: String, label: String)] = []
        for index in 0..<g_variant_n_children(list) {
            let option = g_variant_get_child_value(list, index)!
            defer { g_variant_unref(option) }
            let optionID = OptionReader.string(child: 0, of: option), optionLabel = OptionReader.string(child: 1, of: option)
            guard !optionID.isEmpty, !optionLabel.isEmpty else { throw ChooserQuestionError(reason: "choice “\(id)” has an option without an id or a label") }
            options.append((optionID, optionLabel))
        }
        let selected = OptionReader.string(child: 3, of: value)
        if options.isEmpty, !["", "true", "false"].contains(selected) {
            throw ChooserQuestionError(reason: "choice “\(id)” is a check button; “\(selected)” is not true or false")
        }
        return Choice(id: id, label: label, options: options, selected: selected)
    }
}

/// `a{sv}` lookups with a type check: a known key with another type is an error, as the frontend
/// makes it; unknown keys are ignored.
struct OptionReader {
    let options: OpaquePointer
    let method: ChooserQuestion.Method

    /// The value of `key` if present (a new reference), after checking its type.
    func value(_ key: String, type: String) throws(ChooserQuestionError) -> OpaquePointer? {
        guard let value = g_variant_lookup_value(options, key, nil) else { return nil }
        let actual = String(cString: g_variant_get_type_string(value))
        guard actual == type else {
            g_variant_unref(value)
            throw ChooserQuestionError(reason: "\(method.rawValue): option “\(key)” is of type \(actual), not \(type)")
        }
        return value
    }

    func string(_ key: String) throws(ChooserQuestionError) -> String? {
        guard let value = try value(key, type: "s") else { return nil }
        defer { g_variant_unref(value) }
        return String(cString: g_variant_get_string(value, nil))
    }

    func boolean(_ key: String) throws(ChooserQuestionError) -> Bool? {
        guard let value = try value(key, type: "b") else { return nil }
        defer { g_variant_unref(value) }
        return g_variant_get_boolean(value) != 0
    }

    /// A byte string (`ay`, a path that may end with its NUL byte): without the NUL.
    func bytes(_ key: String) throws(ChooserQuestionError) -> [UInt8]? {
        guard let value = try value(key, type: "ay") else { return nil }
        defer { g_variant_unref(value) }
        var count: gsize = 0
        guard let data = g_variant_get_fixed_array(value, &count, 1) else { return [] }
        var bytes = Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
        while bytes.last == 0 { bytes.removeLast() }
        return bytes
    }

    static func string(child index: Int, of value: OpaquePointer) -> String {
        let child = g_variant_get_child_value(value, gsize(index))!
        defer { g_variant_unref(child) }
        return String(cString: g_variant_get_string(child, nil))
    }
}
