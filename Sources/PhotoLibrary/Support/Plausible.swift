// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The ranges a number from a file must fall in to be believed. Headers are written by cameras
/// with broken firmware, by fuzzers and by truncated downloads; an index may have been written by
/// an older Photopick that believed them. Each reader checks what it reads where it enters, the
/// indexer checks again before storing, and rows read back are checked once more; a value outside
/// its range becomes unknown (nil), never a trap and never a 584-billion-year video.
public enum Plausible {
    /// Longest believable video, in seconds: 30 days. Longer claims are broken headers, not films.
    public static let maximumDuration: Double = 30 * 24 * 3600
    /// Longest believable side of a photo or video, in pixels (PNG allows 2^31 - 1; the largest
    /// stitched panoramas stay well below a million).
    public static let maximumSide = 1 << 20
    /// UTC offsets run from -12:00 to +14:00; a little more is allowed for historical local times.
    public static let utcOffsetMinutes = -16 * 60...16 * 60
    /// XMP ratings run from -1 (rejected) to 5 stars.
    public static let ratings = -1...5
    /// EXIF orientations.
    public static let orientations = 1...8

    /// A duration in seconds: finite, not negative, at most `maximumDuration`.
    public static func duration(_ seconds: Double?) -> Double? {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds <= maximumDuration else { return nil }
        return seconds
    }

    /// A duration of `units` at `timescale` units per second (an MP4 mvhd): nil for a zero timescale.
    static func duration(units: UInt64, timescale: UInt64) -> Double? {
        guard timescale > 0 else { return nil }
        return duration(Double(units) / Double(timescale))
    }

    /// A displayed size: both sides from 1 to `maximumSide`, or nothing (one side alone is no use).
    public static func size(width: Int?, height: Int?) -> (width: Int, height: Int)? {
        guard let width, let height, (1...maximumSide).contains(width), (1...maximumSide).contains(height) else { return nil }
        return (width, height)
    }

    /// The same for unsigned header fields, which may not even fit an `Int`.
    static func size<T: BinaryInteger>(width: T, height: T) -> (width: Int, height: Int)? {
        size(width: Int(exactly: width), height: Int(exactly: height))
    }

    public static func orientation(_ value: Int?) -> Int? {
        value.flatMap { orientations.contains($0) ? $0 : nil }
    }

    public static func rating(_ value: Int?) -> Int? {
        value.flatMap { ratings.contains($0) ? $0 : nil }
    }

    public static func utcOffset(_ minutes: Int?) -> Int? {
        minutes.flatMap { utcOffsetMinutes.contains($0) ? $0 : nil }
    }

    /// Capture dates recorded inside a file are believed from 1900-01-01 UTC…
    static let earliestCaptureMilliseconds: Int64 = -2_208_988_800_000
    /// …to a day after now (a camera a time zone ahead, or its clock a little fast).
    static let captureLeadMilliseconds: Int64 = 86_400_000

    /// A date recorded inside a file, when believable. A camera whose clock says 2099 is wrong,
    /// and believing it would keep its photos above today's in Recents for ever; the caller falls
    /// back to the file's modification time. File times are judged by `fileDate`.
    static func captureDate(_ date: CaptureDate?, now: Int64 = currentMilliseconds()) -> CaptureDate? {
        guard let date else { return nil }
        guard date.source == .embedded else { return date }
        if isBelievable(date.millisecondsSinceEpoch, now: now) { return date }
        if date.millisecondsSinceEpoch > now { RefusedDates.note(date.millisecondsSinceEpoch) }
        return nil
    }

    /// From 1900 to a day after now.
    static func isBelievable(_ milliseconds: Int64, now: Int64 = currentMilliseconds()) -> Bool {
        let latest = now.addingReportingOverflow(captureLeadMilliseconds).partialValue
        return (earliestCaptureMilliseconds...latest).contains(milliseconds)
    }

    /// A file's modification time as its date, unless it is more than a day ahead (set by a tool,
    /// a camera card written with a wrong clock): then the time the file's status last changed,
    /// which the kernel sets and no program can, when that one is believable. (A time before
    /// 1900 is kept: old scans are dated so on purpose, and they sort last, out of the way.)
    static func fileDate(modificationTimeNanoseconds: Int64, path: FilePath?, now: Int64 = currentMilliseconds()) -> CaptureDate {
        let modified = CaptureDate(fileModificationTimeNanoseconds: modificationTimeNanoseconds)
        let latest = now.addingReportingOverflow(captureLeadMilliseconds).partialValue
        guard modified.millisecondsSinceEpoch > latest, let path else { return modified }
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else { return modified }
        let changed = Int64(info.st_ctim.tv_sec).multipliedReportingOverflow(by: 1000).partialValue + Int64(info.st_ctim.tv_nsec) / 1_000_000
        guard isBelievable(changed, now: now) else { return modified }
        return CaptureDate(millisecondsSinceEpoch: changed, utcOffsetMinutes: nil, source: .fileChangeTime)
    }

    /// Milliseconds since 1970 by the system clock.
    static func currentMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Frame counts are only compared with 1; a negative one is unknown.
    static func frameCount(_ value: Int?) -> Int? {
        value.flatMap { $0 >= 0 ? $0 : nil }
    }
}

extension MediaFile {
    /// The file with every number that is out of range made unknown, and an unbelievable capture
    /// date replaced by the file's own date (`Plausible.fileDate`): what the index stores.
    func plausible(modificationTimeNanoseconds: Int64, path: FilePath? = nil) -> MediaFile {
        var checked = self
        if Plausible.captureDate(captureDate) == nil || captureDate.source != .embedded {
            checked.captureDate = Plausible.fileDate(modificationTimeNanoseconds: modificationTimeNanoseconds, path: path)
        }
        let size = Plausible.size(width: width, height: height)
        checked.width = size?.width
        checked.height = size?.height
        checked.orientation = Plausible.orientation(orientation) ?? 1
        checked.duration = Plausible.duration(duration)
        checked.frameCount = Plausible.frameCount(frameCount)
        checked.rating = Plausible.rating(rating)
        checked.captureDate.utcOffsetMinutes = Plausible.utcOffset(checked.captureDate.utcOffsetMinutes)
        return checked
    }
}

/// The dates ahead of the clock the readers refused while reading one file on this thread. A
/// machine whose clock is a year behind (a dead clock battery, a first boot before the network
/// time) refuses this year's EXIF dates; the index keeps the earliest refused date with the row
/// and reads the file again once the clock has passed it (`Indexer.readAgainWhatTheClockPassed`).
/// (Issue 37: such a first index lost those dates for good.)
enum RefusedDates {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Notes a date refused for being ahead of the clock (milliseconds since 1970, above 0).
    static func note(_ milliseconds: Int64) {
        let earliest = current.map { min($0, milliseconds) } ?? milliseconds
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: Int(earliest)))
    }

    private static var current: Int64? {
        pthread_getspecific(key).map { Int64(Int(bitPattern: $0)) }
    }

    /// Runs `body` and returns what it returned with the earliest date it refused, if any.
    static func collecting<T>(_ body: () throws -> T) rethrows -> (T, Int64?) {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, nil)
        defer { pthread_setspecific(key, outer) }
        let result = try body()
        return (result, current)
    }
}
