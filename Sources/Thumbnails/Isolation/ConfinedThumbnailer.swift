// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import Glibc

/// `confine-thumbnailer --memory BYTES --write FOLDER -- PROGRAM ARGUMENT…`: what runs a
/// thumbnailer of another project (ffmpegthumbnailer, for videos): it confines itself
/// (`photopick_confine_program`: dies with the window, gains no privileges, holds at most BYTES
/// of address space, writes nothing but beneath FOLDER, reaches no TCP port) and becomes the
/// program. Such a thumbnailer parses a file it was handed as the person's own program did,
/// with every right of theirs (issue 37): a video that took it over could change their files
/// and send them away.
public enum ConfinedThumbnailer {
    /// The arguments that run `argv` confined through `executable` (Photopick's own program).
    public static func arguments(executable: String, memory: Int, writable: String, argv: [String]) -> [String] {
        [executable, "confine-thumbnailer", "--memory", String(memory), "--write", writable, "--"] + argv
    }

    /// Confines this process and runs the program; returns only when it cannot (126: the
    /// walls could not be put up; 127: the program could not be run).
    public static func run(arguments: [String]) -> Int32 {
        var memory: UInt64?
        var writable: String?
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            guard index + 1 < arguments.count else { return 2 }
            switch arguments[index] {
            case "--memory": memory = UInt64(arguments[index + 1])
            case "--write": writable = arguments[index + 1]
            default: return 2
            }
            index += 2
        }
        let argv = Array(arguments.dropFirst(index + 1))
        guard let memory, let writable, !argv.isEmpty else { return 2 }
        guard photopick_confine_program(writable, memory) >= 0 else {
            let message = "photopick: cannot confine \(argv[0]): \(String(cString: strerror(errno)))\n"
            _ = message.withCString { write(2, $0, strlen($0)) }
            return 126
        }
        // (One heap for its threads: each new one would reserve 64 MB of the bounded space.)
        setenv("MALLOC_ARENA_MAX", "2", 1)
        let pointers = argv.map { strdup($0) } + [nil]
        execvp(argv[0], pointers)
        return 127
    }
}
