import PhotoLibrary

/// "0:07", "1:02:03". Formats any value without trapping: the index only passes on plausible
/// durations, but a NaN, an infinity or 1.8e19 seconds must still not bring the window down.
/// Those (and negative durations) give nothing.
func formatDuration(_ seconds: Double) -> String {
    let rounded = seconds.rounded()
    // Below a billion seconds (31 years) the whole seconds fit an Int on every platform.
    guard rounded >= 0, rounded < 1e9, let total = Int(exactly: rounded) else { return "" }
    let hours = total / 3600, minutes = (total % 3600) / 60, rest = total % 60
    let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
}

extension CaptureDate {
    /// "12 March 2024".
    var spokenDate: String {
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                      "October", "November", "December"]
        let text = iso8601
        let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return text }
        return "\(parts[2]) \(months[parts[1] - 1]) \(parts[0])"
    }
}
