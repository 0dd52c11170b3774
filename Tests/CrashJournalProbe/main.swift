// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PhotoLibrary

// A process that ends while it reads a file, the way a reader's bug would end the window: the
// crash journal's tests (PhotoLibraryTests/CrashJournalTests) start it and look at what the next
// start makes of the journal it leaves.
//
//   crash-journal-probe INDEX-PATH FILE trap|segfault|exit|wait [--as-library]
//
// As the photopick program, with handlers that mark the crash; `--as-library` as the embedded
// picker in another program, with none.
let arguments = CommandLine.arguments
guard arguments.count == 4 || (arguments.count == 5 && arguments[4] == "--as-library") else {
    print("usage: crash-journal-probe INDEX-PATH FILE trap|segfault|exit|wait [--as-library]")
    exit(2)
}
if arguments.count == 4 { CrashJournal.installSignalHandlers() }
let journal = CrashJournal(indexPath: arguments[1])
let how = arguments[3]
journal.reading(FilePath(arguments[2])) {
    switch how {
    case "trap":
        // What a Swift reader's bug does: an index out of range, an overflow.
        let values = [1, 2, 3]
        print(values[Int(getpid()) % 1 + values.count])
    case "segfault":
        raise(SIGSEGV)
    case "exit":
        exit(0)
    default:
        print("reading", terminator: "\n")
        fflush(nil)
        while true { pause() }
    }
}
