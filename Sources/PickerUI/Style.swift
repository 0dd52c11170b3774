// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk

/// The picker's one style sheet: rounded thumbnails, the selection ring and numbered badge, the
/// strip, the camera, the album switcher. Installed once per display by the first picker.
///
/// It styles the picker and nothing else of the window it is in (issue 38, point 3: its rules
/// for `.preview`, `.problem`, `.duration` … restyled a host's own widgets of those classes).
/// Every rule is scoped under the widget's CSS name, `photopick-picker`, or under
/// `.photopick-part`, the class of the header widgets a host may pack in its own header bar;
/// its colours are its own names (`@photopick_accent_bg_color` …), defined as libadwaita's
/// where the host uses libadwaita and as GTK's own theme colours in a plain GTK host, which
/// keeps its theme and its dark preference (the picker never calls adw_init ()).
@MainActor
enum Style {
    private static var installed = false

    /// The class of the picker's widgets that may live outside it (its header widgets, in a
    /// host's header bar or the program's), so that its rules reach them there too.
    nonisolated static let partClass = "photopick-part"

    /// The padding around each grid cell, on every side: the grid's arithmetic (columns, the
    /// cells in sight, the camera row) adds `cellGap` to a cell's side.
    nonisolated static let cellPadding = 2
    nonisolated static var cellGap: Int { 2 * cellPadding }

    // Colours are libadwaita's named colours, so the picker follows the light, dark and
    // high-contrast styles and the accent colour.
    nonisolated static let css = """
    .photo-grid { padding: 4px; }
    .photo-grid > child { padding: \(cellPadding)px; }
    /* The keyboard focus: a ring in the text colour around the cell, unlike the pick ring, drawn
       outside the photo on the window's own colour: over a dark photo's edge it was lost. */
    .photo-grid > child { border-radius: 10px; }
    .photo-grid > child:focus:focus-visible { outline: 2px solid @window_fg_color; outline-offset: 1px; }
    .location-bar { padding: 8px 10px; }
    .find-bar { padding: 8px 16px; border-radius: 9999px; font-weight: bold; }
    /* The theme gives boxes in grid children a 12 px margin; a cell is a box. */
    .photo-grid > child > .cell { margin: 0; border-radius: 8px; }
    .cell .thumbnail { border-radius: 8px; background-color: alpha(currentColor, 0.08); }
    /* The pick ring: an accent line at the edge with a white one inside it, so that it shows on
       a photo of the accent's own colour (blue sky under a blue ring). Outlines, which GTK draws
       over a widget's content: the cell's over the picture, the picture's over its thumbnail. */
    .cell.picked { outline: 3px solid @accent_bg_color; outline-offset: -3px; }
    .cell.picked .thumbnail { outline: 2px solid alpha(white, 0.9); outline-offset: -5px; }
    @keyframes photopick-refused-shake {
      0% { margin-left: 0; margin-right: 0; }
      20% { margin-left: 10px; margin-right: -10px; }
      40% { margin-left: -8px; margin-right: 8px; }
      60% { margin-left: 6px; margin-right: -6px; }
      80% { margin-left: -3px; margin-right: 3px; }
      100% { margin-left: 0; margin-right: 0; }
    }
    .cell.refused { animation: photopick-refused-shake 0.4s ease-out; }
    .pick-badge, .pick-circle {
      min-width: 24px; min-height: 24px; margin: 7px; padding: 0;
      border-radius: 999px; border: 2px solid white;
    }
    .pick-badge {
      background-color: @accent_bg_color; color: @accent_fg_color;
      font-weight: bold; font-feature-settings: "tnum";
      box-shadow: 0 1px 3px alpha(black, 0.35);
    }
    /* An empty circle on hover says a tile can be picked. */
    .pick-circle { background-color: alpha(black, 0.15); opacity: 0; transition: opacity 150ms ease-out;
      box-shadow: 0 1px 3px alpha(black, 0.35); }
    .cell:hover .pick-circle { opacity: 1; }
    .cell.broken .pick-circle { opacity: 0; }
    .pick-badge.small { min-width: 20px; min-height: 20px; margin: 3px; font-size: 0.8em; }
    .duration {
      margin: 6px; padding: 1px 5px; border-radius: 6px; color: white;
      background-color: alpha(black, 0.55); font-size: 0.8em; font-weight: bold;
    }
    /* Icon and text shadows of at most 1px blur: GTK 4.8's cairo renderer draws a larger one by
       blurring a surface the size of the area being drawn, not the icon's, and the first screen's
       few hearts made the host's longest main-loop turn 28 ms against 19 without (issue 38). */
    .favorite { margin: 6px; color: white; -gtk-icon-shadow: 0 1px 1px alpha(black, 0.7); }
    .remote { margin: 6px; color: white; opacity: 0.9; -gtk-icon-shadow: 0 1px 1px alpha(black, 0.7); }
    /* A photo whose server does not answer: dimmed, as a phone dims what it cannot load. */
    .cell.offline .thumbnail { opacity: 0.4; }
    .cell.offline .remote { color: @window_fg_color; -gtk-icon-shadow: none; }
    .status-icon { opacity: 0.6; }
    /* A pick's copy from another computer: the ring's colour, the buttons in its middle. */
    .fetch-ring { color: @accent_color; }
    .fetch-ring.failed { color: @error_color; }
    .fetch-button { min-width: 30px; min-height: 30px; padding: 0; color: white; background: none; box-shadow: none; }
    .fetch-button:hover { background-color: alpha(white, 0.2); }
    .fetch-caption { color: white; font-size: 0.85em; font-weight: bold; text-shadow: 0 1px 1px alpha(black, 0.8); }
    /* (The camera's frames come mirrored from its worker: a CSS transform with a negative scale
       renders very slowly in GTK 4.8's cairo renderer.) */
    .capture { background-color: black; }
    .capture-flash { background-color: white; opacity: 0; transition: opacity 150ms ease-out; }
    .capture.flash .capture-flash { opacity: 0.8; transition: none; }
    .capture-message { color: white; font-size: 1.1em; margin: 24px; }
    .capture-back, .capture-switcher { margin: 12px; }
    .shutter {
      min-width: 64px; min-height: 64px; margin: 24px; padding: 0;
      border-radius: 999px; border: 4px solid white; color: white;
      background-color: alpha(white, 0.2);
    }
    .shutter:hover { background-color: alpha(white, 0.35); }
    .shutter:active { background-color: alpha(white, 0.6); }
    .shutter:disabled { opacity: 0.4; }
    .problem { font-size: 0.85em; margin: 0 6px; }
    .picked-strip { padding: 3px 5px; }
    .picked-item { padding: 0; border-radius: 6px; }
    /* The keyboard focus as on the grid's cells, outside the photo: the theme's ring, inside the
       button, lay under the photo's edge and was barely seen. */
    .picked-item:focus:focus-visible { outline: 2px solid @window_fg_color; outline-offset: 1px; }
    .picked-item picture { border-radius: 6px; }
    .preview { background-color: @window_bg_color; padding: 8px; }
    .preview-caption, .preview-problem {
      margin: 12px; padding: 6px 14px; border-radius: 999px; color: white; background-color: rgba(0, 0, 0, 0.6);
    }
    .preview-problem { border-radius: 12px; font-weight: bold; }
    /* The album switcher's popover: GNOME's navigation list rows, small rounded covers, section headings. */
    .album-switcher-popover > contents { padding: 0; }
    .album-switcher-list { background: none; padding: 0 0 6px 0; }
    .album-switcher-list > row { padding: 6px 8px; }
    .album-switcher-heading { padding: 12px 14px 4px 14px; font-size: 0.9em; }
    .album-switcher-cover { border-radius: 6px; background-color: alpha(currentColor, 0.1); }
    .album-switcher-empty { padding: 24px; }
    /* The folder tree's arrow: a narrow column, no taller than the cover. */
    .album-switcher-expander { min-width: 16px; min-height: 16px; padding: 2px; margin-right: -6px; }
    .album-switcher-compact > menubutton > button { min-height: 0; padding: 0 6px; }
    .album-switcher-compact label:not(.title) { font-size: 0.85em; font-weight: normal; }
    .album-switcher-compact image { -gtk-icon-size: 12px; }
    .pan-down-arrow { min-width: 16px; min-height: 16px; }
    .album-switcher-compact .pan-down-arrow { min-width: 12px; min-height: 12px; }
    .index-progress { padding: 6px 12px; font-size: 0.9em; }
    /* The timeline along the grid's right edge, and the month beside the pointer. */
    .timeline { font-size: 0.7em; margin-right: 2px; }
    .timeline-range { opacity: 0; }
    .timeline-month { padding: 4px 10px; border-radius: 999px; font-weight: bold; }
    """

    /// libadwaita's colours, and what stands for them in GTK's own theme (light and dark).
    nonisolated private static let colours: [(ours: String, adwaita: String, gtk: String)] = [
        ("accent_bg_color", "accent_bg_color", "theme_selected_bg_color"),
        ("accent_fg_color", "accent_fg_color", "theme_selected_fg_color"),
        ("accent_color", "accent_color", "theme_selected_bg_color"),
        ("window_fg_color", "window_fg_color", "theme_fg_color"),
        ("window_bg_color", "window_bg_color", "theme_bg_color"),
        ("error_color", "error_color", "error_color"),
    ]

    /// In a plain GTK host: the look of the few libadwaita widgets the picker uses (a toast, a
    /// status page), which libadwaita's own style sheet gives only where it is loaded.
    nonisolated static let plainGTKCSS = """
    toast { margin: 12px; padding: 6px 6px 6px 14px; border-radius: 999px; min-height: 36px;
      background-color: alpha(black, 0.8); color: white; }
    toast > widget > label { margin: 0 8px; }
    toast button { min-width: 24px; min-height: 24px; padding: 4px; border-radius: 999px; color: white; background: none; }
    statuspage > scrolledwindow > viewport > box { margin: 36px 12px; }
    statuspage .icon { -gtk-icon-size: 96px; color: alpha(currentColor, 0.55); margin-bottom: 24px; }
    statuspage .title { font-size: 20pt; font-weight: 800; margin-bottom: 12px; }
    """

    /// The style sheet as installed in a libadwaita host and in a plain GTK one. Made once, on the
    /// thread that loads libphotopick-implementation.so (`prepare`, before the first picker is
    /// made) or else by the first picker: scoping it was 3 ms of the host's turn that makes the
    /// first picker (issue 38, point 6).
    nonisolated static let adwaitaSheet = installedCSS(adwaita: true)
    nonisolated static let plainSheet = installedCSS(adwaita: false)

    /// Makes both style sheets, on any thread.
    nonisolated static func prepare() {
        _ = adwaitaSheet
        _ = plainSheet
    }

    /// The style sheet as installed: the rules scoped under the picker, its colours defined.
    nonisolated static func installedCSS(adwaita: Bool) -> String {
        var sheet = colours.map { "@define-color photopick_\($0.ours) @\(adwaita ? $0.adwaita : $0.gtk);" }.joined(separator: "\n") + "\n"
        var rules = css + (adwaita ? "" : plainGTKCSS)
        for colour in colours { rules = replacingEvery("@\(colour.ours)", with: "@photopick_\(colour.ours)", in: rules) }
        sheet += scoped(rules, under: ["photopick-picker", ".\(partClass)"])
        return sheet
    }

    /// `text` with every `target` replaced, byte by byte. (Swift's `replacing` and `firstRange`
    /// are the regex module's: making the sheet with them took 3.5 ms of the window's start.)
    nonisolated static func replacingEvery(_ target: String, with replacement: String, in text: String) -> String {
        let bytes = Array(text.utf8), pattern = Array(target.utf8), substitute = Array(replacement.utf8)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == pattern[0], index + pattern.count <= bytes.count, bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                output += substitute
                index += pattern.count
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `css` without its comments.
    nonisolated static func withoutComments(_ css: String) -> String {
        let bytes = Array(css.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                // (An unclosed comment stays, as before: GTK's parser says where it is.)
                guard end + 1 < bytes.count else { output += bytes[index...]; break }
                index = end + 2
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` without the white space at its ends.
    nonisolated private static func trimmed(_ text: Substring) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }), let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(text[first...last])
    }

    /// `css` with every rule's selectors scoped: `.cell` becomes `photopick-picker .cell,
    /// .photopick-part .cell, .photopick-part.cell`. Comments go; @keyframes blocks stay as they are (their names are
    /// the picker's own).
    nonisolated static func scoped(_ css: String, under scopes: [String]) -> String {
        let text = withoutComments(css)
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let selectors = trimmed(rest[..<open])
            // The block, to its matching brace (a @keyframes block holds blocks).
            var depth = 0, index = open
            repeat {
                if rest[index] == "{" { depth += 1 } else if rest[index] == "}" { depth -= 1 }
                index = rest.index(after: index)
            } while depth > 0 && index < rest.endIndex
            let block = rest[open..<index]
            if selectors.hasPrefix("@") {
                output += selectors + " " + block + "\n"
            } else {
                let list = selectors.split(separator: ",").map { trimmed($0) }
                // Inside a scope, and a part itself (`.photopick-part.album-switcher-compact`):
                // a part may be the top of what a rule styles.
                let inside = scopes.flatMap { scope in list.map { "\(scope) \($0)" } }
                let itself = list.filter { $0.hasPrefix(".") }.map { ".\(partClass)\($0)" }
                output += (inside + itself).joined(separator: ", ") + " " + block + "\n"
            }
            rest = rest[index...]
        }
        return output
    }

    static func install() {
        guard !installed, let display = gdk_display_get_default() else { return }
        installed = true
        let provider = gtk_css_provider_new()!
        gtk_css_provider_load_from_data(provider, adw_is_initialized() != 0 ? adwaitaSheet : plainSheet, -1)
        gtk_style_context_add_provider_for_display(display, OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }
}
