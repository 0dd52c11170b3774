// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// One album in the switcher's list: its cover (the newest photo), its name in full, its count,
/// and a check mark on the open album. A folder is a row of the folder tree (`AlbumTree`): drawn
/// in by its depth, with an expander when folders are below it, and named below the row it is
/// under; while searching, the list is flat, and a folder's own name is the title with the
/// folders above it as a dim subtitle.
@MainActor
final class AlbumSwitcherRow {
    enum Section: Equatable { case albums, folders }

    /// The GtkListBoxRow.
    let widget: UnsafeMutablePointer<GtkWidget>
    let cover: UnsafeMutablePointer<GtkWidget>
    let title: UnsafeMutablePointer<GtkWidget>
    let subtitle: UnsafeMutablePointer<GtkWidget>
    let count: UnsafeMutablePointer<GtkWidget>
    let check: UnsafeMutablePointer<GtkWidget>
    /// Opens or closes the folders below (a flat button: a click on it does not choose the row).
    let expander: UnsafeMutablePointer<GtkWidget>
    private let expanderIcon: UnsafeMutablePointer<GtkWidget>
    private let box: UnsafeMutablePointer<GtkWidget>
    private(set) var entry: AlbumTreeRow
    var summary: AlbumSummary { entry.summary }
    private(set) var isExpanded = false
    /// Drawn as a flat list (a search): no indent, no expander, the parents as the subtitle.
    private(set) var isFlat = false
    private(set) var isCurrent = false
    /// The name in lower case, for the search.
    private var searchKey = ""
    /// The cover is asked for only while the row is on screen; a loaded one stays.
    private(set) var request: ThumbnailRequest?
    /// The album's newest files, newest first, looked up once per binding; the first that makes
    /// a thumbnail is the cover (nil: not looked up yet).
    private var coverCandidates: [FilePath]?
    private(set) var hasCover = false

    static let coverSide = 40

    var section: Section { summary.album.isSmart ? .albums : .folders }

    /// The indent of each level of the tree, in pixels.
    static let indent = 20

    convenience init(_ summary: AlbumSummary) {
        self.init(AlbumTreeRow(summary: summary, title: summary.displayName))
    }

    init(_ entry: AlbumTreeRow) {
        self.entry = entry
        widget = gtk_list_box_row_new()
        style(widget, "album-switcher-row")
        box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        expanderIcon = gtk_image_new_from_icon_name("pan-end-symbolic")
        expander = gtk_button_new()
        gtk_button_set_child(expander.cast(), expanderIcon)
        gtk_button_set_has_frame(expander.cast(), 0)
        gtk_widget_set_valign(expander, GTK_ALIGN_CENTER)
        // The row takes the keys (Right and Left): a Tab stop per row would double the list's.
        gtk_widget_set_focusable(expander, 0)
        style(expander, "album-switcher-expander")
        // An image at a fixed pixel size: a picture would grow with a row whose title wraps.
        cover = gtk_image_new()
        gtk_image_set_pixel_size(cover.opaque, Int32(Self.coverSide))
        gtk_widget_set_valign(cover, GTK_ALIGN_CENTER)
        gtk_widget_set_overflow(cover, GTK_OVERFLOW_HIDDEN)
        style(cover, "album-switcher-cover")
        title = gtk_label_new(nil)
        // Long names wrap instead of losing their middle: the name is what tells folders apart.
        gtk_label_set_wrap(title.opaque, 1)
        gtk_label_set_wrap_mode(title.opaque, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_max_width_chars(title.opaque, 30)
        gtk_label_set_xalign(title.opaque, 0)
        subtitle = gtk_label_new(nil)
        // The parent path: its end (the nearest folders) says most.
        gtk_label_set_ellipsize(subtitle.opaque, PANGO_ELLIPSIZE_START)
        gtk_label_set_max_width_chars(subtitle.opaque, 30)
        gtk_label_set_xalign(subtitle.opaque, 0)
        style(subtitle, "dim-label", "caption")
        let names = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        gtk_widget_set_hexpand(names, 1)
        gtk_widget_set_valign(names, GTK_ALIGN_CENTER)
        gtk_box_append(names.cast(), title)
        gtk_box_append(names.cast(), subtitle)
        count = gtk_label_new(nil)
        style(count, "dim-label", "numeric")
        check = gtk_image_new_from_icon_name("object-select-symbolic")
        // Hidden by opacity, so every row keeps the same columns.
        gtk_widget_set_opacity(check, 0)
        gtk_box_append(box.cast(), expander)
        gtk_box_append(box.cast(), cover)
        gtk_box_append(box.cast(), names)
        gtk_box_append(box.cast(), count)
        gtk_box_append(box.cast(), check)
        gtk_list_box_row_set_child(widget.cast(), box)
        bind(entry, force: true)
    }

    /// Splits a folder album's name ("Trips/2019/Zanzibar") into its own name and the path above.
    static func titleAndSubtitle(of summary: AlbumSummary) -> (title: String, subtitle: String?) {
        if summary.album.isSmart { return (summary.displayName, nil) }
        return ownNameAndParents(summary.name)
    }

    /// "Trips/2019/Zanzibar": "Zanzibar", "Trips/2019".
    static func ownNameAndParents(_ name: String) -> (title: String, subtitle: String?) {
        guard let slash = name.lastIndex(of: "/") else { return (name, nil) }
        return (String(name[name.index(after: slash)...]), String(name[..<slash]))
    }

    /// Shows another album (or new counts) in this row; the cover is looked up again when it shows.
    func bind(_ entry: AlbumTreeRow, force: Bool = false) {
        guard force || entry != self.entry else { return }
        let sameAlbum = entry.summary.album == self.entry.summary.album
        self.entry = entry
        showNames()
        gtk_label_set_text(count.opaque, Localization.number(summary.count))
        // The English name too, for a smart album: "Videos" finds "Видео".
        searchKey = summary.displayName == summary.name ? summary.name.lowercased() : (summary.displayName + "\n" + summary.name).lowercased()
        let name = entry.isFolderItself ? i18n("{name}, this folder only", ["name": entry.title]) : summary.displayName
        photopick_accessible_set_label(widget, ni18n("{name}, {count} item", "{name}, {count} items", summary.count, ["name": name]))
        setExpanded(isExpanded, force: true)
        // (New counts of the same album keep its cover.)
        guard force || !sameAlbum else { return }
        cancelCover()
        coverCandidates = nil
        hasCover = false
        gtk_image_clear(cover.opaque)
    }

    /// The title and subtitle for the tree or for a flat list, and the indent.
    private func showNames() {
        var titleText: String, subtitleText: String?
        if isFlat || section == .albums {
            (titleText, subtitleText) = Self.titleAndSubtitle(of: summary)
            let kind = entry.isFolderItself ? i18n("This folder only") : entry.hasChildren ? i18n("With its subfolders") : nil
            if let kind { subtitleText = subtitleText.map { i18n("{folders} · {kind}", ["folders": $0, "kind": kind]) } ?? kind }
        } else {
            // "NIKON Z 6/2019" (the folder between holds nothing else): its own name, then the rest.
            (titleText, subtitleText) = Self.ownNameAndParents(entry.title)
            if entry.isFolderItself { subtitleText = i18n("This folder only") }
        }
        gtk_label_set_text(title.opaque, titleText)
        gtk_label_set_text(subtitle.opaque, subtitleText ?? "")
        gtk_widget_set_visible(subtitle, subtitleText == nil ? 0 : 1)
        gtk_widget_set_margin_start(box, Int32(isFlat ? 0 : entry.depth * Self.indent))
        // Smart albums have no expander; a folder without subfolders keeps its place, unseen.
        gtk_widget_set_visible(expander, section == .folders && !isFlat ? 1 : 0)
        gtk_widget_set_opacity(expander, entry.hasChildren ? 1 : 0)
        gtk_widget_set_sensitive(expander, entry.hasChildren ? 1 : 0)
    }

    /// Drawn flat (while searching) or as the tree.
    func setFlat(_ flat: Bool) {
        guard flat != isFlat else { return }
        isFlat = flat
        showNames()
    }

    /// The expander's arrow, and for screen readers the expanded state of a row with folders below.
    func setExpanded(_ expanded: Bool, force: Bool = false) {
        guard force || expanded != isExpanded else { return }
        isExpanded = expanded
        gtk_image_set_from_icon_name(expanderIcon.opaque, expanded ? "pan-down-symbolic" : "pan-end-symbolic")
        let words = expanded ? i18n("Hide the folders inside") : i18n("Show the folders inside")
        setTooltip(expander, words)
        // (Not focusable, Right and Left do it from the row; a screen reader's review still finds it.)
        photopick_accessible_set_label(expander, words)
        guard entry.hasChildren else {
            gtk_accessible_reset_state(OpaquePointer(widget), GTK_ACCESSIBLE_STATE_EXPANDED)
            return
        }
        Accessible.set(GTK_ACCESSIBLE_STATE_EXPANDED, expanded, of: widget)
    }

    /// Whether the row stays in the list for a search (`query` in lower case; empty matches all).
    func matches(_ query: String) -> Bool { query.isEmpty || searchKey.contains(query) }

    /// How well the row matches `query` (lower case), best first: 0 its whole name (or the last
    /// component of a folder's), 1 a whole word of it, 2 the start of a word, 3 inside a word
    /// ("mate" is a word of the MATE folder, but inside "Animated"); nil for no match.
    func matchRank(_ query: String) -> Int? {
        guard !query.isEmpty else { return 0 }
        guard searchKey.contains(query) else { return nil }
        var best = 3
        for name in searchKey.split(separator: "\n") {
            let last = name.split(separator: "/").last.map(String.init) ?? String(name)
            if name == query || last == query { return 0 }
            let words = name.split { !$0.isLetter && !$0.isNumber }
            if words.contains(where: { $0 == query }) { best = min(best, 1) }
            else if words.contains(where: { $0.hasPrefix(query) }) || name.hasPrefix(query) { best = min(best, 2) }
        }
        return best
    }

    /// Marks the open album: a check mark, and for screen readers the selected state (GtkListBoxRow
    /// starts with it false) and the description "current album".
    func setCurrent(_ current: Bool) {
        guard current != isCurrent else { return }
        isCurrent = current
        gtk_widget_set_opacity(check, current ? 1 : 0)
        let accessible = OpaquePointer(widget)
        // (GtkListBoxRow starts with it false.)
        Accessible.set(GTK_ACCESSIBLE_STATE_SELECTED, current, of: widget)
        if current {
            var property = GTK_ACCESSIBLE_PROPERTY_DESCRIPTION
            var value = GValue()
            g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
            g_value_set_string(&value, "current album")
            gtk_accessible_update_property_value(accessible, 1, &property, &value)
            g_value_unset(&value)
        } else {
            gtk_accessible_reset_property(accessible, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION)
        }
    }

    /// Asks for the cover (the album's newest photo), unless it is loaded or on its way.
    func loadCover(lookingUp lookup: @escaping (Album) -> [FilePath], loader: ThumbnailLoader) {
        guard !hasCover, request == nil else { return }
        // Looked up once per binding: an album's newest photos are one short query.
        if coverCandidates == nil { coverCandidates = lookup(summary.album) }
        guard let path = coverCandidates?.first else { return }
        let side = Self.coverSide * Int(max(1, gtk_widget_get_scale_factor(widget)))
        request = loader.request(path, flavor: .normal) { [weak self] result in
            guard let self else { return }
            self.request = nil
            guard case .success(let thumbnail) = result, let square = thumbnail.pixbuf?.centredSquare(side: side),
                  let texture = gdk_texture_new_for_pixbuf(square.pointer) else {
                // Damaged (or a video with no thumbnailer): the next newest is the cover.
                if !(self.coverCandidates?.isEmpty ?? true) { self.coverCandidates?.removeFirst() }
                self.loadCover(lookingUp: lookup, loader: loader)
                return
            }
            gtk_image_set_from_paintable(self.cover.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
            self.hasCover = true
        }
    }

    /// The row left the screen (scrolled away, filtered out, the popover closed).
    func cancelCover() {
        request?.cancel()
        request = nil
    }
}
