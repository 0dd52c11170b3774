// SPDX-License-Identifier: GPL-3.0-or-later
// Thumbnail benchmark driver: runs the grid's loader over a list of files three times in one
// process (cold: empty disk cache; disk: a fresh memory cache over the now-filled disk cache;
// memory: the same again, all LRU hits) and prints the seconds of each pass as JSON.
// bench/thumbnail-benchmark.py runs it next to vipsthumbnail and gdk-pixbuf-thumbnailer.
//
//   thumbnail-benchmark CACHE_DIR SIZE < NUL-separated file list
import CGLib
import Glibc
import PhotoLibrary
import Thumbnails

let arguments = CommandLine.arguments
guard arguments.count == 3, let flavor = ThumbnailFlavor(name: arguments[2]) else {
    let message = "usage: thumbnail-benchmark CACHE_DIR SIZE < files\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
var input: [UInt8] = []
var buffer = [UInt8](repeating: 0, count: 65536)
while true {
    let count = read(0, &buffer, buffer.count)
    if count <= 0 { break }
    input += buffer[..<count]
}
let files = input.split(separator: 0).map { FilePath(bytes: Array($0)) }
let cache = ThumbnailCache(root: FilePath(arguments[1]))

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Requests every file as a visible cell would and runs the main loop until all arrived (on the
/// main actor, where the results arrive).
@MainActor func pass(_ loader: ThumbnailLoader) -> (seconds: Double, failures: Int) {
    var finished = 0, failures = 0
    let started = now()
    for file in files {
        loader.request(file, flavor: flavor) { result in
            if case .failure = result { failures += 1 }
            finished += 1
        }
    }
    while finished < files.count { g_main_context_iteration(nil, 1) }
    return (now() - started, failures)
}

// Decoding as the window does it: in `photopick decode-worker` processes when a photopick sits
// beside this program (bench/side-by-side.py's build folders, .build/release), else in process.
let besideUs = FilePath(String(cString: realpath("/proc/self/exe", nil))).parent.appending("photopick")
let workers = access(besideUs.displayString, X_OK) == 0
    ? DecodeWorkerPool(executable: WorkerProcess.workerExecutable(besidePhotopick: besideUs.displayString)) : nil
// The workers are started (and ready) before the cold pass, and their start is timed apart: the
// window starts them when it maps, while a first run's scan dates the files, long before its
// first decode; a warm start decodes nothing. (20-30 ms a worker, from a cold page cache too.)
let workerStart = now()
workers?.start(waitingUntilReady: true)
let workerStartSeconds = now() - workerStart
let coldLoader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, memory: MemoryCache(), workers: workers))
let cold = pass(coldLoader)
let coldDecodes = coldLoader.thumbnailer.decodes, coldMain = coldLoader.thumbnailer.mainThreadDecodes
coldLoader.shutdown()
let warmLoader = ThumbnailLoader(thumbnailer: Thumbnailer(cache: cache, memory: MemoryCache(byteLimit: 512 << 20), workers: workers))
let disk = pass(warmLoader)
let memory = pass(warmLoader)
let warmDecodes = warmLoader.thumbnailer.decodes, warmMain = warmLoader.thumbnailer.mainThreadDecodes
warmLoader.shutdown()
print("""
{"files": \(files.count), "worker_start_seconds": \(workerStartSeconds), "cold_seconds": \(cold.seconds), "disk_seconds": \(disk.seconds), "memory_seconds": \(memory.seconds), \
"failures": \(cold.failures), "decodes": \(coldDecodes + warmDecodes), "main_thread_decodes": \(coldMain + warmMain), \
"decode_workers": \(workers?.statistics.started ?? 0)}
""")
