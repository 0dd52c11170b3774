// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Copies picked files into a folder (`--copy-to DIR`, the window's Copy to Folder…). A copy is written aside under a
/// hidden temporary name and then linked into place, so a name that exists is never replaced
/// (the copy becomes name_2.jpg and so on) and no half-written file ever carries a real name. The
/// originals are only read. When a copy fails, the copies made so far are removed again: the
/// script gets all of them or none, with the reason.
public struct FileCopier: Sendable {
    public let folder: FilePath

    public init(into folder: FilePath) { self.folder = folder }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The copies' paths, in the order of `sources`. Slow storage makes this slow: call it off
    /// the GTK thread.
    public func copy(_ sources: [FilePath]) throws(Failure) -> [FilePath] {
        var made: [FilePath] = []
        for source in sources {
            do {
                made.append(try copy(source))
            } catch {
                for copy in made { _ = copy.withCString { unlink($0) } }
                throw error
            }
        }
        return made
    }

    private func copy(_ source: FilePath) throws(Failure) -> FilePath {
        let input = source.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard input >= 0 else { throw Failure(description: "cannot read \(source): \(errorDescription(errno))") }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "cannot copy \(source): not a regular file")
        }
        var template = folder.appending(".photopick-copy-XXXXXX").bytes.map { CChar(bitPattern: $0) } + [0]
        let output = mkstemp(&template)
        guard output >= 0 else { throw Failure(description: "cannot write in \(folder): \(errorDescription(errno))") }
        let temporary = FilePath(bytes: template.dropLast().map { UInt8(bitPattern: $0) })
        defer { _ = temporary.withCString { unlink($0) } }
        let written = FileCopier.transfer(from: input, to: output)
        // The copy keeps the original's time (as cp -p), so it sorts by date like the original.
        var times = [info.st_atim, info.st_mtim]
        let mask = umask(0); umask(mask)
        fchmod(output, (info.st_mode & 0o666) & ~mask)
        _ = futimens(output, &times)
        let closed = close(output)
        if let failure = written ?? (closed != 0 ? errno : nil) {
            throw Failure(description: "cannot copy \(source) into \(folder): \(errorDescription(failure))")
        }
        return try link(temporary, as: source.lastComponent)
    }

    /// Links the finished copy under the first free name: name.jpg, name_2.jpg, name_3.jpg …
    private func link(_ temporary: FilePath, as name: [UInt8]) throws(Failure) -> FilePath {
        let dot = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil } ?? name.endIndex
        let stem = Array(name[..<dot]), suffix = Array(name[dot...])
        for number in 1...10_000 {
            let candidate = folder.appending(number == 1 ? name : stem + Array("_\(number)".utf8) + suffix)
            let linked = temporary.withCString { from in candidate.withCString { Glibc.link(from, $0) } }
            if linked == 0 { return candidate }
            if errno != EEXIST { throw Failure(description: "cannot write \(candidate): \(errorDescription(errno))") }
        }
        throw Failure(description: "cannot write into \(folder): every name like \(String(decoding: name, as: UTF8.self)) is taken")
    }

    /// Copies to the end of `input`; returns the errno of a failure, or nil.
    private static func transfer(from input: Int32, to output: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return nil }
            if count < 0 { if errno == EINTR { continue }; return errno }
            var offset = 0
            while offset < count {
                let wrote = buffer[offset..<count].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                if wrote < 0 { if errno == EINTR { continue }; return errno }
                offset += wrote
            }
        }
    }
}
