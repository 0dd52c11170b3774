// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import CGLib
import Glibc
import PhotoLibrary

/// A freedesktop thumbnailer (a `*.thumbnailer` key file, such as ffmpegthumbnailer's for
/// videos), run from argv with a timeout: never through a shell.
public struct ExternalThumbnailer: Sendable {
    public let mimeTypes: Set<String>
    /// The Exec line split into arguments, with %u %i %o %s still in place.
    public let arguments: [String]
    public let definition: FilePath

    /// Thumbnailers installed in `$XDG_DATA_HOME/thumbnailers` and `$XDG_DATA_DIRS/*/thumbnailers`;
    /// the first definition of a MIME type wins, as in GNOME.
    public static func installed() -> [ExternalThumbnailer] {
        var folders = [XDGDirectories.dataHome.appending("thumbnailers")]
        let dataDirectories = environmentValue("XDG_DATA_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        folders += dataDirectories.split(separator: ":").map { FilePath(String($0)).appending("thumbnailers") }
        var result: [ExternalThumbnailer] = []
        for folder in folders {
            guard let directory = folder.withCString({ opendir($0) }) else { continue }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasSuffix(".thumbnailer") { names.append(name) }
            }
            closedir(directory)
            for name in names.sorted() {
                if let thumbnailer = parse(folder.appending(name)) { result.append(thumbnailer) }
            }
        }
        return result
    }

    static func parse(_ path: FilePath) -> ExternalThumbnailer? {
        guard let bytes = ConfigurationFile.read(path, limit: 64 << 10), let keyFile = g_key_file_new() else { return nil }
        defer { g_key_file_free(keyFile) }
        guard bytes.withUnsafeBufferPointer({ buffer in
            buffer.withMemoryRebound(to: CChar.self) { g_key_file_load_from_data(keyFile, $0.baseAddress, gsize($0.count), G_KEY_FILE_NONE, nil) }
        }) != 0 else { return nil }
        func value(_ key: String) -> String? {
            guard let text = g_key_file_get_string(keyFile, "Thumbnailer Entry", key, nil) else { return nil }
            defer { g_free(text) }
            return String(cString: text)
        }
        guard let exec = value("Exec"), let types = value("MimeType") else { return nil }
        if let tryExec = value("TryExec"), findProgram(tryExec) == nil { return nil }
        // g_shell_parse_argv only splits and unquotes like a shell; nothing is run by a shell.
        var count: Int32 = 0
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        guard g_shell_parse_argv(exec, &count, &argv, nil) != 0, let argv else { return nil }
        defer { g_strfreev(argv) }
        var arguments = (0..<Int(count)).compactMap { argv[$0].map { String(cString: $0) } }
        guard let program = arguments.first, findProgram(program) != nil else { return nil }
        // ffmpegthumbnailer's -f draws film sprockets down the frame's sides: the grid's square
        // crop kept them on portrait videos only (issue 40, point 19), and the cell's badge
        // already says it is a video.
        if program.split(separator: "/").last == "ffmpegthumbnailer" { arguments.removeAll { $0 == "-f" } }
        return ExternalThumbnailer(mimeTypes: Set(types.split(separator: ";").map(String.init)), arguments: arguments, definition: path)
    }

    static func findProgram(_ name: String) -> String? {
        guard let found = g_find_program_in_path(name) else { return nil }
        defer { g_free(found) }
        return String(cString: found)
    }

    /// Where a run's private folder goes: `$TMPDIR` (else /tmp), named with our process id so a
    /// later run can tell a folder whose process is gone (killed mid-run) from one in use.
    private static let temporaryPrefix: String = {
        let base = g_get_tmp_dir().map { String(cString: $0) } ?? "/tmp"
        removeAbandonedFolders(in: base)
        return base + "/photopick-thumbnailer-\(getpid())-"
    }()

    /// Removes the private folders of thumbnailer runs whose Photopick process no longer exists
    /// (a picker killed while a thumbnailer ran never got to remove its folder). Once per process.
    static func removeAbandonedFolders(in base: String) {
        guard let directory = opendir(base) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("photopick-thumbnailer-") else { continue }
            let parts = name.dropFirst("photopick-thumbnailer-".count).split(separator: "-")
            // A folder of the old form (no process id) or of a process that is gone.
            let owner = parts.count == 2 ? pid_t(parts[0]) : nil
            if let owner, kill(owner, 0) == 0 || errno == EPERM { continue }
            let folder = base + "/" + name
            unlink(folder + "/thumbnail.png")
            rmdir(folder)
        }
    }

    /// What messages call it: the program (ffmpegthumbnailer).
    var displayName: String {
        return String(arguments[0].split(separator: "/").last ?? Substring(arguments[0]))
    }

    /// How a thumbnailer is run: confined through Photopick's own program, within `memory`
    /// bytes of address space, and its picture read back by `load` (a decode worker: the PNG
    /// it wrote is the thumbnailer's, which a file may have taken over).
    struct Confinement {
        let executable: String
        let memory: Int
        /// Runs the program while `memory` of the decode budget is held (nil: cancelled while
        /// it waited for room).
        let holding: (() -> Subprocess.Status) -> Subprocess.Status?
        let load: (FilePath, Int) -> Result<Pixbuf, ThumbnailFailure>
    }

    /// Runs the thumbnailer for `original` into a private temporary PNG and loads it (through
    /// `confinement` when given: Photopick's own program; else as it is, a test's or a benchmark's).
    func run(on original: ThumbnailCache.Original, size: Int, timeout: Double, confinement: Confinement? = nil,
             isCancelled: () -> Bool = { false }) -> Result<Pixbuf, ThumbnailFailure> {
        var folderTemplate = Array((Self.temporaryPrefix + "XXXXXX").utf8CString)
        guard folderTemplate.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return .failure(.temporary("cannot make a temporary folder: \(errorDescription(errno))"))
        }
        let folder = String(decoding: folderTemplate.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let output = folder + "/thumbnail.png"
        defer { unlink(output); rmdir(folder) }
        let argv = arguments.map { argument -> String in
            var result = ""
            var iterator = argument.makeIterator()
            while let character = iterator.next() {
                guard character == "%", let code = iterator.next() else { result.append(character); continue }
                switch code {
                case "u": result += original.uri
                case "i": result += original.path.displayString
                case "o": result += output
                case "s": result += String(size)
                case "%": result += "%"
                default: break
                }
            }
            return result
        }
        let status: Subprocess.Status
        if let confinement {
            let command = ConfinedThumbnailer.arguments(executable: confinement.executable, memory: confinement.memory, writable: folder, argv: argv)
            status = confinement.holding { Subprocess.run(command, timeout: timeout, isCancelled: isCancelled) } ?? .cancelled
        } else {
            status = Subprocess.run(argv, timeout: timeout, isCancelled: isCancelled)
        }
        switch status {
        case .timedOut:
            // Maybe a busy machine: not recorded as a failure, tried again next time.
            let seconds = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
            return .failure(.temporary("\(displayName) took longer than \(seconds) s"))
        case .cancelled:
            return .failure(.cancelled)
        case .failedToStart(let reason):
            return .failure(.temporary("cannot run \(arguments[0]): \(reason)"))
        case .exited(let code) where code != 0:
            return .failure(.thumbnailerFailed("\(displayName) failed (exit status \(code))"))
        case .exited:
            if let confinement {
                return confinement.load(FilePath(output), size).mapError { failure in
                    .thumbnailerFailed("\(displayName) wrote no usable image: \(failure)")
                }.map { $0.fitting(in: size) }
            }
            switch Pixbuf.load(output) {
            case .success(let pixbuf): return .success(pixbuf.fitting(in: size))
            case .failure(let error): return .failure(.thumbnailerFailed("\(displayName) wrote no usable image: \(error.message)"))
            }
        }
    }
}

func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// Starts a program from argv with /dev/null for its input and outputs, and waits for it with a
/// timeout (then it is killed).
enum Subprocess {
    enum Status: Equatable {
        case exited(Int32)
        case timedOut
        case cancelled
        case failedToStart(String)
    }

    static func run(_ argv: [String], timeout: Double, isCancelled: () -> Bool = { false }) -> Status {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        // Nothing else of this process's (a host app's files, its sockets): the thumbnailer
        // reads the file it is named and writes its output, by name.
        photopick_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a timeout kills the thumbnailer and anything it started.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard started == 0 else { return .failedToStart(errorDescription(started)) }
        let deadline = monotonicSeconds() + timeout
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR {
                let reason = errorDescription(errno)
                kill(-pid, SIGKILL)
                return .failedToStart(reason)
            }
            let timedOut = monotonicSeconds() > deadline
            if timedOut || isCancelled() {
                kill(-pid, SIGKILL)
                waitpid(pid, &status, 0)
                return timedOut ? .timedOut : .cancelled
            }
            usleep(5_000)
        }
        // WIFEXITED / WEXITSTATUS are macros: decode the status word by hand.
        return (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .exited(128 + (status & 0x7f))
    }
}
