// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// When a photo or video was captured, as an instant plus what is known about its clock.
public struct CaptureDate: Hashable, Sendable {
    public enum Source: Int, Sendable {
        /// The file's modification time: no date inside the file.
        case fileModificationTime = 0
        /// A date inside the file: EXIF or XMP DateTimeOriginal (in any EXIF block of a HEIF),
        /// IPTC DateCreated, or a container's creation time for videos.
        case embedded = 1
        /// The file's modification time was over a day ahead of the clock (a file time as far
        /// as 2255, which would sit first in Recents for ever): its earliest believable time,
        /// the time its status last changed, which no program can set.
        case fileChangeTime = 2
    }

    /// Milliseconds since 1970-01-01 UTC; the sort key of every album. A wall-clock date (a
    /// camera's date without its zone, `isWallClock`) is kept as if its clock ran on UTC: the
    /// date and time the camera showed, the same in every time zone the picker runs in.
    public var millisecondsSinceEpoch: Int64
    /// Minutes east of UTC of the camera's clock when the file says so (EXIF OffsetTimeOriginal).
    public var utcOffsetMinutes: Int?
    public var source: Source

    /// A date the camera recorded without saying its time zone: its wall-clock time, not an
    /// instant. Shown and sorted as that time in every zone (23:56 on 5 May is 5 May in Seoul and
    /// in Los Angeles); an index built under one `TZ` reads the same under another.
    public var isWallClock: Bool { source == .embedded && utcOffsetMinutes == nil }

    public init(millisecondsSinceEpoch: Int64, utcOffsetMinutes: Int?, source: Source) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
        self.utcOffsetMinutes = utcOffsetMinutes
        self.source = source
    }

    /// A file's modification time as a capture date (the date of a file with none inside).
    init(fileModificationTimeNanoseconds nanoseconds: Int64) {
        self.init(millisecondsSinceEpoch: nanoseconds.floorDivided(by: 1_000_000), utcOffsetMinutes: nil, source: .fileModificationTime)
    }

    /// Parses EXIF's "YYYY:MM:DD HH:MM:SS" (and XMP's ISO 8601 "YYYY-MM-DDTHH:MM:SS"), with the
    /// optional sub-second digits and "+HH:MM" offset EXIF keeps in separate tags. Without an
    /// offset it is a wall-clock date (`isWallClock`), never read in the machine's zone. Returns
    /// nil for dates cameras write when their clock is unset ("0000:00:00 00:00:00", blanks) and
    /// for impossible ones.
    public static func parse(_ text: String, subseconds: String? = nil, offset: String? = nil) -> CaptureDate? {
        let digits = Array(text.utf8)
        guard digits.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let character = digits[index]
                guard character >= 48, character <= 57 else { return nil }
                value = value * 10 + Int(character - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1800...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var embeddedOffset = offset.flatMap(parseOffset)
        var fraction = subseconds
        if digits.count > 19 {
            // ISO 8601 from XMP may carry ".123" and "+02:00" or "Z" inline.
            var rest = String(decoding: digits[19...], as: UTF8.self)
            if rest.hasPrefix(".") {
                let fractionDigits = rest.dropFirst().prefix { $0.isNumber }
                fraction = fraction ?? String(fractionDigits)
                rest = String(rest.dropFirst(1 + fractionDigits.count))
            }
            if embeddedOffset == nil, !rest.isEmpty { embeddedOffset = parseOffset(rest) }
        }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        let seconds = Int64(timegm(&fields)) - Int64(embeddedOffset ?? 0) * 60
        // tm normalises 31 February into March: reject dates that did not survive the round trip.
        guard fields.tm_mday == Int32(day) else { return nil }
        var milliseconds = seconds * 1000
        if let fraction, !fraction.isEmpty, fraction.allSatisfy(\.isNumber) {
            let padded = (fraction + "000").prefix(3)
            milliseconds += Int64(padded) ?? 0
        }
        return CaptureDate(millisecondsSinceEpoch: milliseconds, utcOffsetMinutes: embeddedOffset, source: .embedded)
    }

    /// "+02:00", "-0530", "Z" -> minutes east of UTC.
    static func parseOffset(_ text: String) -> Int? {
        let trimmed = text.trimmingSpaces
        if trimmed == "Z" { return 0 }
        let characters = Array(trimmed.utf8)
        guard let sign = characters.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        let numbers = characters.dropFirst().filter { $0 != UInt8(ascii: ":") }
        guard numbers.count == 4, numbers.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let value = numbers.map { Int($0 - 48) }
        let hours = value[0] * 10 + value[1], minutes = value[2] * 10 + value[3]
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }

    /// ISO 8601 text: with the recorded offset when known ("2024-03-12T09:41:00+01:00"), in local
    /// time with the local offset for file times (an exact instant), and as the bare wall-clock
    /// time, in every zone, when the camera did not say its zone.
    /// Any instant formats without trapping (an index may hold Int64.min); beyond what the C
    /// library can break down, the fields stay at their zero values.
    public var iso8601: String {
        let (fields, offset) = brokenDown
        let remainder = millisecondsSinceEpoch % 1000
        let milliseconds = Int(remainder < 0 ? remainder + 1000 : remainder)
        var text = "\(pad(Int(fields.tm_year) + 1900, 4))-\(pad(Int(fields.tm_mon) + 1))-\(pad(Int(fields.tm_mday)))"
        text += "T\(pad(Int(fields.tm_hour))):\(pad(Int(fields.tm_min))):\(pad(Int(fields.tm_sec)))"
        if milliseconds != 0 { text += ".\(pad(milliseconds, 3))" }
        return text + (offset.map(Self.formatOffset) ?? "")
    }

    /// The day `iso8601` writes, without writing it (a cell's spoken name says the day).
    public var calendarDay: (year: Int, month: Int, day: Int) {
        let fields = brokenDown.fields
        return (Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday))
    }

    /// The fields as `iso8601` shows them, and the offset it writes after them (nil: a bare
    /// wall-clock time).
    private var brokenDown: (fields: tm, offsetMinutes: Int?) {
        var seconds = time_t(millisecondsSinceEpoch.floorDivided(by: 1000))
        var fields = tm()
        if let offset = Plausible.utcOffset(utcOffsetMinutes) {
            seconds = seconds.addingReportingOverflow(time_t(offset * 60)).partialValue
            gmtime_r(&seconds, &fields)
            return (fields, offset)
        } else if source == .embedded {
            gmtime_r(&seconds, &fields)  // a wall-clock date, kept as if on UTC
            return (fields, nil)
        } else {
            localtime_r(&seconds, &fields)
            return (fields, Int(fields.tm_gmtoff / 60))  // a file time is an instant
        }
    }

    private static func formatOffset(_ minutes: Int) -> String {
        let sign = minutes < 0 ? "-" : "+"
        return "\(sign)\(pad(abs(minutes) / 60)):\(pad(abs(minutes) % 60))"
    }
}

func pad(_ value: Int, _ width: Int = 2) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

extension Int64 {
    public func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

extension CaptureDate {
    /// "2024", "2024-03", "2024-03-12": the first instant after that year, month or day, as
    /// milliseconds of a clock on UTC (as `capturedAt` counts a camera's clock); nil when it is
    /// not such a date. Where `--date` and the widget's `date` go: the newest photo before it.
    public static func endOfPeriod(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4, parts.dropFirst().allSatisfy({ $0.count == 2 }),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        var (year, month, day) = (numbers[0], numbers.count > 1 ? numbers[1] : 12, numbers.count > 2 ? numbers[2] : 0)
        guard (1800...9999).contains(year), (1...12).contains(month) else { return nil }
        if numbers.count < 3 {
            // The month's end: the first of the next.
            (year, month, day) = month == 12 ? (year + 1, 1, 1) : (year, month + 1, 1)
        } else {
            var fields = tm()
            fields.tm_year = Int32(year - 1900)
            fields.tm_mon = Int32(month - 1)
            fields.tm_mday = Int32(day)
            let seconds = timegm(&fields)
            // (timegm rolls 31 February over to March: such a day is not a date.)
            guard fields.tm_mday == Int32(day), fields.tm_mon == Int32(month - 1) else { return nil }
            return (Int64(seconds) + 86_400) * 1000
        }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        return Int64(timegm(&fields)) * 1000
    }
}
