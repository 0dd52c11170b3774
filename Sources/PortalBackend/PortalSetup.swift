// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import CGLib
import Glibc

/// How xdg-desktop-portal is made to choose Photopick for FileChooser (`photopick portal enable`),
/// to stop (`disable`), and which backend it chooses (`status`), without root and on every
/// portal version. The portal reads its configuration once, as it starts; what changed here is
/// seen after it restarts.
///
/// - Up to 1.16 (Debian 12): the first `.portal` file, by file name, that lists the desktop in
///   `UseIn` wins, and GNOME's and GTK's come first. Enabling makes a private portals folder
///   (the portal reads `XDG_DESKTOP_PORTAL_DIR`, set through a systemd user drop-in): Photopick's
///   file with the desktop in `UseIn`, and copies of the others with FileChooser taken out.
/// - 1.17 to 1.21.0: the first `portals.conf` found wins outright: a user `DESKTOP-portals.conf`
///   that repeats the system one's lines and names Photopick for FileChooser.
/// - From 1.21.1: files are merged per interface: one line in the user's `portals.conf`.
public struct PortalSetup {
    public static let backendName = "photopick"
    /// data/portal/photopick.portal, as installed (a test holds the two equal).
    public static let installedPortalFile = """
        [portal]
        DBusName=org.freedesktop.impl.portal.desktop.photopick
        Interfaces=org.freedesktop.impl.portal.FileChooser;
        # Chosen only where the desktop's name is "photopick": installing Photopick never takes over
        # anyone's chooser. `photopick portal enable` makes the portal choose it.
        UseIn=photopick

        """
    public static let interface = "org.freedesktop.impl.portal.FileChooser"

    /// What the portal reads, and where this person's files go.
    public struct Environment {
        public var version: PortalVersion
        /// XDG_CURRENT_DESKTOP's names, lowercased, in order.
        public var desktops: [String]
        public var configHome: FilePath
        public var dataHome: FilePath
        /// The portal's own folder of `.portal` files (its XDG_DESKTOP_PORTAL_DIR, or
        /// /usr/share/xdg-desktop-portal/portals).
        public var portalsFolder: FilePath
        /// Folders of system `portals.conf` files, first first (/etc/xdg-desktop-portal, then
        /// /usr/share/xdg-desktop-portal).
        public var configFolders: [FilePath]

        public init(version: PortalVersion, desktops: [String], configHome: FilePath, dataHome: FilePath,
                    portalsFolder: FilePath = FilePath("/usr/share/xdg-desktop-portal/portals"),
                    configFolders: [FilePath] = [FilePath("/etc/xdg-desktop-portal"), FilePath("/usr/share/xdg-desktop-portal")]) {
            self.version = version
            self.desktops = desktops
            self.configHome = configHome
            self.dataHome = dataHome
            self.portalsFolder = portalsFolder
            self.configFolders = configFolders
        }

        /// XDG_CURRENT_DESKTOP as the portal reads it.
        public static func desktops(_ value: String?) -> [String] {
            (value ?? "").split(separator: ":").map { $0.lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// What enabling writes: whole files, or one line in a file the person may already have.
    public enum Change: Equatable {
        case file(FilePath, String)
        case line(FilePath, section: String, line: String)

        public var path: FilePath {
            switch self {
            case .file(let path, _), .line(let path, _, _): return path
            }
        }
    }

    public let environment: Environment
    public init(_ environment: Environment) { self.environment = environment }

    /// Where Photopick's record of what `enable` wrote lives (what `disable` takes away).
    public var recordPath: FilePath { environment.dataHome.appending("photopick/portal-enabled") }
    /// 1.16's private portals folder.
    public var privatePortals: FilePath { environment.dataHome.appending("photopick/portals") }
    /// 1.16's systemd user drop-in for the portal's service.
    public var dropIn: FilePath { environment.configHome.appending("systemd/user/xdg-desktop-portal.service.d/photopick.conf") }

    // MARK: Enabling

    /// The changes `enable` makes (none are made here). `backendPortalFile` is Photopick's
    /// installed `.portal` file's text. Throws a sentence when this portal cannot be made to
    /// choose Photopick.
    public func changes(backendPortalFile: String) throws(ChooserQuestionError) -> [Change] {
        let version = environment.version
        if version < PortalVersion(1, 17, 0) {
            var changes: [Change] = []
            let useIn = (environment.desktops + [Self.backendName]).joined(separator: ";") + ";"
            changes.append(.file(privatePortals.appending("\(Self.backendName).portal"), Self.portalFile(backendPortalFile, useIn: useIn)))
            for (name, text) in PortalFiles.read(environment.portalsFolder) where name != Self.backendName {
                changes.append(.file(privatePortals.appending("\(name).portal"), Self.withoutFileChooser(text)))
            }
            changes.append(.file(dropIn, """
                # Written by `photopick portal enable` (removed by `photopick portal disable`): the portal
                # reads its backends from Photopick's folder, where Photopick answers FileChooser.
                [Service]
                Environment=XDG_DESKTOP_PORTAL_DIR=\(privatePortals)

                """))
            return changes
        }
        var changes: [Change] = []
        let installed = PortalFiles.read(environment.portalsFolder).contains { $0.name == Self.backendName }
        if !installed {
            guard version >= PortalVersion(1, 20, 1) else {
                throw ChooserQuestionError(reason: "xdg-desktop-portal \(version) reads backends only from \(environment.portalsFolder), which has no photopick.portal: install Photopick with the prefix /usr")
            }
            changes.append(.file(environment.dataHome.appending("xdg-desktop-portal/portals/\(Self.backendName).portal"),
                                 Self.portalFile(backendPortalFile, useIn: "\(Self.backendName);")))
        }
        let line = "\(Self.interface)=\(Self.backendName)"
        let userFolder = environment.configHome.appending("xdg-desktop-portal")
        if version >= PortalVersion(1, 21, 1) {
            changes.append(.line(userFolder.appending("portals.conf"), section: "preferred", line: line))
            return changes
        }
        // The first file found wins outright: the user's, for the first desktop, holding what the
        // system's said and Photopick for FileChooser.
        let name = environment.desktops.first.map { "\($0)-portals.conf" } ?? "portals.conf"
        let user = userFolder.appending(name)
        if readSmallFile(user) != nil {
            changes.append(.line(user, section: "preferred", line: line))
        } else {
            let system = PortalFiles.firstConfig(in: environment.configFolders, desktops: environment.desktops)
            let kept = system.map { Self.preferredLines(PortalFiles.text($0.path)).filter { !$0.hasPrefix(Self.interface + "=") } } ?? []
            var text = "# Written by `photopick portal enable` from \(system.map { "\($0.path)" } ?? "no system file"), with Photopick for FileChooser.\n[preferred]\n"
            for kept in kept { text += kept + "\n" }
            text += line + "\n"
            changes.append(.file(user, text))
        }
        return changes
    }

    /// Photopick's `.portal` file with `UseIn` replaced.
    static func portalFile(_ text: String, useIn: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.portalTrimmed.hasPrefix("UseIn") && !$0.hasPrefix("#") }
        while lines.last == "" { lines.removeLast() }
        lines.append("UseIn=\(useIn)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Another backend's `.portal` file as it is, without FileChooser in `Interfaces`.
    static func withoutFileChooser(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let trimmed = line.portalTrimmed
            guard trimmed.hasPrefix("Interfaces"), let equals = trimmed.firstIndex(of: "=") else { return String(line) }
            let kept = trimmed[trimmed.index(after: equals)...].split(separator: ";").map { $0.portalTrimmed }
                .filter { !$0.isEmpty && $0 != interface }
            return "Interfaces=" + kept.map { $0 + ";" }.joined()
        }.joined(separator: "\n")
    }

    /// The `key=value` lines of a portals.conf's [preferred] section.
    static func preferredLines(_ text: String) -> [String] {
        var inPreferred = false, lines: [String] = []
        for line in text.split(separator: "\n").map({ $0.portalTrimmed }) {
            if line.hasPrefix("[") { inPreferred = line == "[preferred]"; continue }
            if inPreferred, !line.isEmpty, !line.hasPrefix("#"), line.contains("=") { lines.append(line) }
        }
        return lines
    }

    /// Makes `changes` and records them. Returns the paths written.
    public func enable(_ changes: [Change]) throws(ChooserQuestionError) -> [FilePath] {
        var record: [String] = []
        for change in changes {
            let folder = change.path.parent
            for made in try PortalFiles.makeFolders(folder) { record.append("folder\t\(made)") }
            switch change {
            case .file(let path, let text):
                try PortalFiles.write(text, to: path)
                record.append("file\t\(path)")
            case .line(let path, let section, let line):
                let existing = readSmallFile(path).map { String(decoding: $0, as: UTF8.self) }
                if existing == nil { record.append("file\t\(path)") } else { record.append("line\t\(path)\t\(line)") }
                try PortalFiles.write(Self.adding(line, section: section, to: existing ?? ""), to: path)
            }
        }
        for made in try PortalFiles.makeFolders(recordPath.parent) { record.append("folder\t\(made)") }
        try PortalFiles.write(record.joined(separator: "\n") + "\n", to: recordPath)
        return changes.map(\.path)
    }

    /// `line` in `[section]` of an ini text: the key's old line replaced, or the line added.
    static func adding(_ line: String, section: String, to text: String) -> String {
        let key = String(line.prefix { $0 != "=" })
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        lines.removeAll { $0.portalTrimmed.hasPrefix(key + "=") || $0.portalTrimmed.hasPrefix(key + " =") }
        if let header = lines.firstIndex(of: "[\(section)]") {
            lines.insert(line, at: header + 1)
        } else {
            if !lines.isEmpty { lines.append("") }
            lines += ["[\(section)]", line]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public var isEnabled: Bool { readSmallFile(recordPath) != nil }

    /// Takes away what `enable` wrote, by its record: its files, its lines, the folders it made
    /// (when empty). Returns the paths changed.
    public func disable() throws(ChooserQuestionError) -> [FilePath] {
        guard let record = readSmallFile(recordPath) else { return [] }
        var changed: [FilePath] = [], folders: [FilePath] = []
        for entry in String(decoding: record, as: UTF8.self).split(separator: "\n") {
            let fields = entry.split(separator: "\t", maxSplits: 2).map(String.init)
            guard fields.count >= 2 else { continue }
            let path = FilePath(fields[1])
            switch fields[0] {
            case "file":
                if path.withCString({ unlink($0) }) == 0 { changed.append(path) }
            case "line" where fields.count == 3:
                guard let text = readSmallFile(path).map({ String(decoding: $0, as: UTF8.self) }) else { continue }
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                lines.removeAll { $0 == fields[2] }
                try PortalFiles.write(lines.joined(separator: "\n"), to: path)
                changed.append(path)
            case "folder":
                folders.append(path)
            default: break
            }
        }
        _ = recordPath.withCString { unlink($0) }
        // Deepest first: a folder made inside another made one. (Those that hold anything else
        // now stay.)
        for folder in folders.reversed() { _ = folder.withCString { rmdir($0) } }
        return changed
    }

    // MARK: Which backend the portal chooses

    /// The FileChooser backend a portal of this version, with this environment, binds as it
    /// starts (the name of its `.portal` file), or nil for none.
    public func chosenBackend() -> String? {
        let portals = PortalFiles.read(environment.portalsFolder) + (environment.version >= PortalVersion(1, 20, 1)
            ? PortalFiles.read(environment.dataHome.appending("xdg-desktop-portal/portals")) : [])
        let offering = portals.filter { PortalFiles.interfaces($0.text).contains(Self.interface) }
        if environment.version >= PortalVersion(1, 17, 0), let named = configuredBackend(offering.map(\.name)) {
            return named.isEmpty ? nil : named
        }
        // UseIn: the first file by name that lists a desktop, desktop by desktop; then any.
        for desktop in environment.desktops {
            if let found = offering.first(where: { PortalFiles.useIn($0.text).contains(desktop) }) { return found.name }
        }
        return offering.first?.name
    }

    /// What portals.conf names for FileChooser ("" for none), or nil when no file decides.
    private func configuredBackend(_ available: [String]) -> String? {
        let folders = [environment.configHome.appending("xdg-desktop-portal")] + environment.configFolders
        var files: [FilePath] = []
        for folder in folders {
            for desktop in environment.desktops { files.append(folder.appending("\(desktop)-portals.conf")) }
            files.append(folder.appending("portals.conf"))
        }
        let found = files.filter { readSmallFile($0) != nil }
        // Up to 1.21.0 the first file decides alone; from 1.21.1 the first that names the
        // interface, else the first default.
        let deciding = environment.version >= PortalVersion(1, 21, 1) ? found : Array(found.prefix(1))
        func value(_ key: String) -> String? {
            for file in deciding {
                for line in Self.preferredLines(PortalFiles.text(file)) where line.hasPrefix(key + "=") {
                    return String(line.dropFirst(key.count + 1)).portalTrimmed
                }
            }
            return nil
        }
        guard let chosen = value(Self.interface) ?? value("default") else { return nil }
        for name in chosen.split(separator: ";").map({ $0.portalTrimmed }) {
            if name == "none" { return "" }
            if name == "*" { return available.first ?? "" }
            if available.contains(name) { return name }
        }
        return ""
    }
}

/// A portal version (`xdg-desktop-portal --version`).
public struct PortalVersion: Comparable, CustomStringConvertible, Sendable {
    public let parts: [Int]
    public init(_ major: Int, _ minor: Int, _ micro: Int) { parts = [major, minor, micro] }

    /// "xdg-desktop-portal 1.16.0" or "1.16.0".
    public init?(_ text: String) {
        guard let word = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).last else { return nil }
        let numbers = word.split(separator: ".").map { Int($0) }
        guard numbers.count >= 2, numbers.allSatisfy({ $0 != nil }) else { return nil }
        parts = numbers.map { $0! } + Array(repeating: 0, count: max(0, 3 - numbers.count))
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }
    public static func < (a: PortalVersion, b: PortalVersion) -> Bool { a.parts.lexicographicallyPrecedes(b.parts) }
}

/// Reading and writing the portal's small text files.
enum PortalFiles {
    /// The `.portal` files of a folder, by name (sorted, as the portal sorts them).
    static func read(_ folder: FilePath) -> [(name: String, text: String)] {
        guard let directory = folder.withCString({ opendir($0) }) else { return [] }
        defer { closedir(directory) }
        var found: [(String, String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".portal"), let bytes = readSmallFile(folder.appending(name)) else { continue }
            found.append((String(name.dropLast(7)), String(decoding: bytes, as: UTF8.self)))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    static func text(_ path: FilePath) -> String { readSmallFile(path).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    static func list(_ text: String, key: String) -> [String] {
        for line in text.split(separator: "\n").map({ $0.portalTrimmed }) where line.hasPrefix(key) {
            let rest = line.dropFirst(key.count).portalTrimmed
            guard rest.hasPrefix("=") else { continue }
            return rest.dropFirst().split(separator: ";").map { $0.portalTrimmed }.filter { !$0.isEmpty }
        }
        return []
    }

    static func interfaces(_ text: String) -> [String] { list(text, key: "Interfaces") }
    static func useIn(_ text: String) -> [String] { list(text, key: "UseIn").map { $0.lowercased() } }

    /// The system portals.conf the portal would read first.
    static func firstConfig(in folders: [FilePath], desktops: [String]) -> (path: FilePath, Void)? {
        for folder in folders {
            for name in desktops.map({ "\($0)-portals.conf" }) + ["portals.conf"] {
                let path = folder.appending(name)
                if readSmallFile(path) != nil { return (path, ()) }
            }
        }
        return nil
    }

    /// Makes a folder and its missing parents; returns those it made, outermost first.
    static func makeFolders(_ folder: FilePath) throws(ChooserQuestionError) -> [FilePath] {
        var missing: [FilePath] = []
        var current = folder
        while current.bytes.count > 1, !current.isDirectory {
            missing.insert(current, at: 0)
            current = current.parent
        }
        for path in missing where path.withCString({ mkdir($0, 0o755) }) != 0 && errno != EEXIST {
            throw ChooserQuestionError(reason: "cannot make \(path): \(String(cString: strerror(errno)))")
        }
        return missing
    }

    static func write(_ text: String, to path: FilePath) throws(ChooserQuestionError) {
        var error: UnsafeMutablePointer<GError>?
        let written = path.withCString { g_file_set_contents($0, text, gssize(text.utf8.count), &error) }
        if written == 0 {
            defer { g_error_free(error) }
            throw ChooserQuestionError(reason: "cannot write \(path): \(String(cString: error!.pointee.message))")
        }
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (an ini file's key, value or line).
    var portalTrimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
