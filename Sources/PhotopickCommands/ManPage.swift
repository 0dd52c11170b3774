// SPDX-License-Identifier: GPL-3.0-or-later
import PhotoLibrary
/// photopick(1), written from the same option tables `--help` prints, so the two never differ.
/// `photopick --man-page` prints it; data/photopick.1 is its output (a test keeps it current),
/// installed by meson.
@MainActor func manPage() -> String {
    var page = """
    .TH PHOTOPICK 1 "" "Photopick \(photopickVersion)" "User Commands"
    .SH NAME
    photopick \\- pick photos and videos, from the app menu or from a script
    .SH SYNOPSIS
    .B photopick
    [\\fIOPTION\\fR...]
    .br
    .B photopick
    .B \\-\\-file\\-selection
    [\\fB\\-\\-multiple\\fR] [\\fB\\-\\-separator\\fR=\\fISEP\\fR] [\\fIOPTION\\fR...]
    .br
    .B photopick
    \\fICOMMAND\\fR [\\fIOPTION\\fR...]
    .SH DESCRIPTION
    Without a command, Photopick opens its picker window on the library (the Pictures and Videos
    folders by default): a grid of every photo and video, newest first, with albums. The person picks
    photos in order; confirming prints their paths in that order. With
    .B \\-\\-file\\-selection
    it is a drop-in for
    .BR "zenity \\-\\-file\\-selection" :
    the same options, output and exit status.

    """
    page += section("WINDOW OPTIONS", PickRequest.parser())
    page += ".SH COMMANDS\n"
    for command in commands {
        let parser = command.options()
        // "FILE… - make thumbnails": the operands come before the dash.
        let parameters = parser.parameters
        let operands = String(parameters[..<(parameters.firstRange(of: "- ")?.lowerBound ?? parameters.endIndex)]).trimmingSpaces
        page += ".SS \(roff("photopick " + command.name + " [OPTION…]" + (operands.isEmpty ? "" : " " + operands)))\n"
        page += roff(parser.summary) + "\n"
        page += optionList(parser)
    }
    page += """
    .SH EXIT STATUS
    The window: 0 when photos were picked and confirmed, 1 when it was cancelled or closed, 5 when
    \\fB\\-\\-timeout\\fR passed, 2 for any error (255 with \\fB\\-\\-file\\-selection\\fR, as zenity).
    SIGTERM, SIGINT or SIGHUP close the window as Cancel does (nothing is printed); the process then
    ends by that signal, as a killed zenity does (143 for SIGTERM).
    The commands: 0 done, 1 failed, 2 bad usage. Every error is one line on standard error.
    .SH FILES
    .TP
    .I ~/.local/share/photopick/
    The index of each set of library folders (SQLite).
    .TP
    .I ~/.cache/thumbnails/
    Thumbnails, shared with GNOME Files and every program that follows the freedesktop specification.
    .TP
    .I ~/.local/state/photopick/state.ini
    The window's size, thumbnail size, album and camera.
    .TP
    .I ~/.config/photopick/folders
    Folders added from the picker.
    .SH EXAMPLES
    .nf
    files=$(photopick \\-\\-file\\-selection \\-\\-multiple \\-\\-filename="$HOME/Pictures/")
    photopick \\-\\-max=3 \\-0 | xargs \\-0 gimp
    photopick ls \\-\\-album Screenshots \\-\\-limit 5
    .fi
    .SH SEE ALSO
    .BR zenity (1)

    """
    return page
}

private func section(_ title: String, _ parser: OptionParser) -> String {
    ".SH \(title)\n" + roff(parser.summary) + "\n" + optionList(parser)
}

private func optionList(_ parser: OptionParser) -> String {
    parser.options.filter { !$0.hidden }.map { option in
        var names = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
        names += "\\fB\(roff("--" + option.long))\\fR"
        if let argument = option.argument { names += "=\\fI\(roff(argument))\\fR" }
        return ".TP\n\(names)\n\(roff(option.description))\n"
    }.joined()
}

/// Text escaped for roff: backslashes, hyphens, characters beyond ASCII (as \[uXXXX], so any
/// troff reads them), and no line may start with a control dot.
private func roff(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": escaped += "\\e"
        case "-": escaped += "\\-"
        case _ where scalar.value > 0x7F:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
        default: escaped.unicodeScalars.append(scalar)
        }
    }
    if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
    return escaped
}
