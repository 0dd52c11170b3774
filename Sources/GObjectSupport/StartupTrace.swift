// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// Time since this process started, said on standard error at the steps of start-up when
/// PHOTOPICK_TRACE_STARTUP is set: where the time to a first frame goes.
public enum StartupTrace {
    public static let isOn = getenv("PHOTOPICK_TRACE_STARTUP") != nil

    public static func mark(_ step: @autoclosure () -> String) {
        guard isOn else { return }
        say("startup", step())
    }

    /// PHOTOPICK_TRACE_THUMBNAILS: each thumbnail job's steps, on the same clock ("thumbnail
    /// 1532 ms  making IMG_0042.JPG, a download"): which cell a first screen waited for, and why.
    public static let tracesThumbnails = getenv("PHOTOPICK_TRACE_THUMBNAILS") != nil

    public static func thumbnail(_ step: @autoclosure () -> String) {
        guard tracesThumbnails else { return }
        say("thumbnail", step())
    }

    private static func say(_ trace: String, _ step: String) {
        let milliseconds = Int((secondsSinceStart() * 1000).rounded())
        var line = "\(trace) \(milliseconds) ms  \(step)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// From the process's start time in /proc (clock ticks since boot) to CLOCK_BOOTTIME now.
    static func secondsSinceStart() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 - processStart
    }

    /// Read once: reading /proc at every mark cost 0.2 ms each, which the traces then showed as
    /// the picker's.
    private static let processStart: Double = {
        guard let file = fopen("/proc/self/stat", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, 1024, file) != nil else { return 0 }
        let text = String(cString: buffer)
        // Fields after the command's closing parenthesis; starttime is field 22 (20th after it).
        guard let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]) else { return 0 }
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()
}
