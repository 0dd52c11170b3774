// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import CFuzzDriver

/// A fuzz input as a file: the readers under test take a path or an open file, as they do for a
/// photo. Each input is rewritten in place in a private folder: the one bench/fuzz made (and
/// removes, since a target ended by a finding exits without cleaning up), else one made here in
/// /dev/shm (memory, no disk wear) and removed at a normal exit.
public enum ScratchFile {
    private nonisolated(unsafe) static var folder: String = {
        if let given = getenv("PHOTOPICK_FUZZ_SCRATCH") { return String(cString: given) }
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/photopick-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "cannot make a scratch folder in \(base)")
        let path = String(cString: template)
        atexit { ScratchFile.removeAll() }
        return path
    }()
    private nonisolated(unsafe) static var written: Set<String> = []

    /// Writes `data` to a file of the scratch folder called `name` and returns its path.
    public static func write(_ data: UnsafeRawBufferPointer, named name: String) -> String {
        let path = folder + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(descriptor >= 0, "cannot write \(path)")
        var offset = 0
        while offset < data.count {
            let count = Glibc.write(descriptor, data.baseAddress! + offset, data.count - offset)
            precondition(count > 0, "cannot write \(path)")
            offset += count
        }
        close(descriptor)
        written.insert(path)
        return path
    }

    static func removeAll() {
        for path in written { unlink(path) }
        rmdir(folder)
    }
}

/// The input libFuzzer hands over, as a buffer (it may be empty, with a null pointer).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    guard let data, size > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: data, count: size)
}

/// File names whose extensions steer the readers the way a photo's name does: a name can say JPEG
/// while the bytes say PNG. The first byte of an input picks one.
public let fuzzFileNames = [
    "input", "input.jpg", "input.png", "input.gif", "input.webp", "input.heic", "input.avif", "input.tif",
    "input.dng", "input.cr2", "input.svg", "input.bmp", "input.ico", "input.tga", "input.pnm", "input.xpm",
    "input.xbm", "input.mp4", "input.mov", "input.mkv", "input.webm", "input.3gp", "input.avi", "input.txt",
]

/// Splits an input into the file name it chose and the file's bytes.
public func nameAndContent(_ input: UnsafeRawBufferPointer) -> (name: String, content: UnsafeRawBufferPointer) {
    guard let first = input.first else { return (fuzzFileNames[0], input) }
    return (fuzzFileNames[Int(first) % fuzzFileNames.count], UnsafeRawBufferPointer(rebasing: input.dropFirst()))
}

/// Runs libFuzzer with this process's arguments (its options: -runs=, -max_total_time=, corpus
/// folders …) on `test`. Each target's main calls it.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                      _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, test)
}
