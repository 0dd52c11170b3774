// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import PickerModel
import Thumbnails

/// The album switcher in the header bar: a button with the open album's name that opens a popover
/// with a search entry and every album in two sections, smart albums then folders (a list box:
/// a few thousand rows are fine, and GtkListView has no section headers before GTK 4.12).
/// Folders are a tree (`AlbumTree`): the library folders open, the folders below them closed;
/// a search lists every album that matches, flat.
///
/// Keyboard: typing filters (case-insensitive, anywhere in the name; whole words, then the starts
/// of words, then the rest, each in the list's order), Enter opens the first match,
/// Down moves into the list, Escape closes the popover; on a folder, Right opens it (then goes
/// to its first subfolder) and Left closes it (or goes to the folder it is in); End in the empty
/// search goes to the last row. Covers are asked for only for the rows on
/// screen (and half a screen around), and cancelled when rows scroll away or the popover closes.
///
/// A widget of its own type, `PhotopickAlbumSwitcher` (CSS node `photopick-album-switcher`, style
/// class `.album-switcher`) around its GtkMenuButton; the widget owns this object.
@MainActor
final class AlbumSwitcher: SwiftWidget {
    static let widgetType = WidgetType("PhotopickAlbumSwitcher", cssName: "photopick-album-switcher",
                                       layout: gtk_bin_layout_get_type(), focusesChild: true)

    /// What the header shows: the switcher's widget. The picker holds a reference of its own (a
    /// host packs it, and may drop it, at any time); the widget holds this object.
    let widget: UnsafeMutablePointer<GtkWidget>
    /// The header button that opens the list.
    let button: UnsafeMutablePointer<GtkWidget>
    /// An album was chosen; the popover is already closed.
    var onChoose: ((Album) -> Void)?
    /// Runs after `onChoose`: closing the popover leaves the keyboard focus on the header
    /// button, so the picker puts it on the new album's first photo.
    var onFocusContent: (() -> Void)?
    /// A month or a year typed in the search was chosen: the open album goes there.
    var onGoToDate: ((DateDestination) -> Void)?
    /// The search as a month or a year ("March 2024", "2019"), offered as the first row.
    private(set) var destination: DateDestination?
    /// That row (not one of `rows`: it is no album).
    var dateRow: UnsafeMutablePointer<GtkWidget> { parts.dateRow }
    private var dateLabel: UnsafeMutablePointer<GtkWidget> { parts.dateLabel }

    private(set) var current: Album?
    private(set) var rows: [AlbumSwitcherRow] = []
    var popover: UnsafeMutablePointer<GtkWidget> { parts.popover }
    var search: UnsafeMutablePointer<GtkWidget> { parts.search }
    var scroller: UnsafeMutablePointer<GtkWidget> { parts.scroller }
    var list: UnsafeMutablePointer<GtkWidget> { parts.list }

    /// The popover's widgets: its search entry, the list box and its date row.
    struct PopoverParts {
        let popover, search, scroller, list, dateRow, dateLabel: UnsafeMutablePointer<GtkWidget>
    }
    /// The popover, made the first time it opens or is asked for (`parts`): making its entry,
    /// list box and date row was 2.8 ms of every window's build under perf, for a popover most
    /// pickings never open.
    private var madeParts: PopoverParts?
    private var parts: PopoverParts { madeParts ?? makePopover() }
    private let buttonLabel: UnsafeMutablePointer<GtkWidget>
    /// Where the albums' covers come from: the newest assets of an album (asked only for rows
    /// on screen) and the thumbnails' loader; set with the library the picker opens.
    var covers: (paths: (Album) -> [FilePath], loader: ThumbnailLoader)?
    /// The search text in lower case.
    private(set) var query = ""
    /// Each row's place in the list's order for `query` (match rank, then place in the tree), by
    /// its widget.
    private var sortKeys: [UnsafeMutableRawPointer: (Int, Int)] = [:]
    private var scrollTicks = 0
    private var lastScrollTarget = -1.0

    var isOpen: Bool { madeParts.map { gtk_widget_get_visible($0.popover) != 0 } ?? false }
    /// The open album's name, as the header shows it.
    var buttonText: String { gtk_label_get_text(buttonLabel.opaque).map { String(cString: $0) } ?? "" }
    /// Whether the album's name shows cut short, "Недавн…" (tests).
    var albumNameIsShortened: Bool { pango_layout_is_ellipsized(gtk_label_get_layout(buttonLabel.opaque)) != 0 }

    /// User data for GTK callbacks that may outlive the switcher.
    final class WeakBox {
        weak var switcher: AlbumSwitcher?
        init(_ switcher: AlbumSwitcher) { self.switcher = switcher }
    }

    init() {
        widget = Self.widgetType.make()
        style(widget, "album-switcher", Style.partClass)
        button = gtk_menu_button_new()
        gtk_widget_set_parent(button, widget)
        gtk_menu_button_set_has_frame(button.opaque, 0)
        setTooltip(button, i18n("Choose an album"))
        // The face: an optional title (what the picker is for) over the album's name and arrow.
        let face = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        titleLabel = gtk_label_new(nil)
        style(titleLabel, "title")
        gtk_label_set_ellipsize(titleLabel.opaque, PANGO_ELLIPSIZE_END)
        gtk_label_set_max_width_chars(titleLabel.opaque, 40)
        gtk_widget_set_visible(titleLabel, 0)
        gtk_box_append(face.cast(), titleLabel)
        let album = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
        gtk_widget_set_halign(album, GTK_ALIGN_CENTER)
        buttonLabel = gtk_label_new(nil)
        gtk_label_set_ellipsize(buttonLabel.opaque, PANGO_ELLIPSIZE_END)
        gtk_label_set_max_width_chars(buttonLabel.opaque, 40)
        style(buttonLabel, "title")
        gtk_box_append(album.cast(), buttonLabel)
        gtk_box_append(album.cast(), makeDownArrow())
        gtk_box_append(face.cast(), album)
        gtk_menu_button_set_child(button.opaque, face)

        // (GtkMenuButton asks for its popover each time it opens, and is sensitive only with a
        // popover or this function.)
        gtk_menu_button_set_create_popup_func(button.opaque, { _, data in MainActor.assumeIsolated {
            _ = Unmanaged<WeakBox>.fromOpaque(data!).takeUnretainedValue().switcher?.parts
        } }, Unmanaged.passRetained(WeakBox(self)).toOpaque(), { data in
            MainActor.preconditionIsolated()
            Unmanaged<WeakBox>.fromOpaque(data!).release()
        })
        Style.install()
        Self.widgetType.adopt(self, by: widget)
    }

    /// Makes the popover and its contents, and gives it to the button.
    private func makePopover() -> PopoverParts {
        let popover = gtk_popover_new()!
        // (A popover is a CSS root of its own: it carries the picker's scope itself.)
        style(popover, "album-switcher-popover", Style.partClass)
        let search = gtk_search_entry_new()!
        setStringProperty(search, "placeholder-text", i18n("Search albums"))
        // (GTK 4.8 does not name an entry by its placeholder: "GtkSearchEntry".)
        photopick_accessible_set_label(search, i18n("Search albums"))
        gtk_widget_set_margin_start(search, 6)
        gtk_widget_set_margin_end(search, 6)
        gtk_widget_set_margin_top(search, 6)
        gtk_widget_set_margin_bottom(search, 6)
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        gtk_list_box_set_activate_on_single_click(list.opaque, 1)
        style(list, "navigation-sidebar", "album-switcher-list")
        photopick_accessible_set_label(list, i18n("Albums"))
        let dateRow = gtk_list_box_row_new()!
        let dateBox = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_box_append(dateBox.cast(), gtk_image_new_from_icon_name("x-office-calendar-symbolic"))
        let dateLabel = gtk_label_new(nil)!
        gtk_label_set_xalign(dateLabel.opaque, 0)
        gtk_box_append(dateBox.cast(), dateLabel)
        gtk_list_box_row_set_child(dateRow.cast(), dateBox)
        style(dateRow, "album-switcher-row", "album-switcher-date")
        gtk_list_box_append(list.opaque, dateRow)
        // (Hidden, not only filtered out, while no date is typed: a filtered row is still a
        // nameless row to a screen reader.)
        gtk_widget_set_visible(dateRow, 0)
        let nothing = gtk_label_new(i18n("No album matches"))!
        style(nothing, "dim-label", "album-switcher-empty")
        gtk_list_box_set_placeholder(list.opaque, nothing)
        let scroller = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(scroller.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_propagate_natural_height(scroller.opaque, 1)
        gtk_widget_set_size_request(scroller, 380, -1)
        gtk_scrolled_window_set_child(scroller.opaque, list)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_box_append(content.cast(), search)
        gtk_box_append(content.cast(), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL))
        gtk_box_append(content.cast(), scroller)
        gtk_popover_set_child(popover.cast(), content)
        gtk_menu_button_set_popover(button.opaque, popover)
        hideTooltipWhileOpen(button)
        // Typing while a row has the focus goes on with the search.
        gtk_search_entry_set_key_capture_widget(search.opaque, list)

        let made = PopoverParts(popover: popover, search: search, scroller: scroller, list: list, dateRow: dateRow, dateLabel: dateLabel)
        madeParts = made
        installListFunctions()
        connectSignals()
        return made
    }

    /// The covers asked for are cancelled, and the scroll's tick goes with the list.
    func widgetDisposed() {
        rows.forEach { $0.cancelCover() }
        if scrollTick != 0 { gtk_widget_remove_tick_callback(scroller, scrollTick) }
        scrollTick = 0
    }

    // MARK: Albums

    /// Shows `albums` (smart albums first, then folders, whatever the order given) and marks
    /// `current`. The rows are made when the popover opens, not at start-up: a few hundred
    /// folders take tens of milliseconds.
    func show(_ albums: [AlbumSummary], current: Album) {
        self.albums = albums
        entries = albums.compactMap { $0.album.isSmart ? AlbumTreeRow(summary: $0, title: $0.displayName) : nil }
            + AlbumTree.rows(albums)
        parents = [:]
        for entry in entries { if let parent = entry.parent { parents[entry.summary.album] = parent } }
        rowsAreStale = true
        if isOpen { updateRows() }
        setCurrent(current)
    }

    private var albums: [AlbumSummary] = []
    /// The rows to show, in the tree's order.
    private(set) var entries: [AlbumTreeRow] = []
    private var rowsAreStale = false
    /// The tree row each row is under.
    private var parents: [Album: Album] = [:]
    /// The tree rows shown open. A library folder starts open, a folder below it closed; they
    /// stay as the person leaves them while the picker lives.
    private(set) var expanded: Set<Album> = []
    private var treesSeen: Set<Album> = []

    /// Brings the rows in line with `albums`, reusing them (so a refresh while the popover is
    /// open keeps its place).
    private func updateRows() {
        guard rowsAreStale else { return }
        rowsAreStale = false
        for entry in entries where entry.hasChildren && !treesSeen.contains(entry.summary.album) {
            treesSeen.insert(entry.summary.album)
            if entry.depth == 0 { expanded.insert(entry.summary.album) }
        }
        for (index, entry) in entries.enumerated() {
            if index < rows.count {
                rows[index].bind(entry)
            } else {
                // Appended to `rows` first: GTK asks the filter about the row as it is added.
                let row = AlbumSwitcherRow(entry)
                rows.append(row)
                connectRow(row)
                gtk_list_box_append(list.opaque, row.widget)
            }
            rows[index].setFlat(!query.isEmpty)
            rows[index].setExpanded(expanded.contains(entry.summary.album))
        }
        while rows.count > entries.count {
            let row = rows.removeLast()
            row.cancelCover()
            gtk_list_box_remove(list.opaque, row.widget)
        }
        computeSortKeys()
        gtk_list_box_invalidate_filter(list.opaque)
        gtk_list_box_invalidate_sort(list.opaque)
        gtk_list_box_invalidate_headers(list.opaque)
        for row in rows { row.setCurrent(row.summary.album == current) }
        updateCovers()
    }

    /// Marks `album` as the open one (the button's text, the check mark).
    func setCurrent(_ album: Album) {
        current = album
        revealInTree(album)
        for row in rows { row.setCurrent(row.summary.album == album) }
        let name = albums.first { $0.album == album }?.displayName ?? ""
        gtk_label_set_text(buttonLabel.opaque, name)
        // A short name never shortens: at 360 px it read "Rec…" ("Недавн…" in Russian) while
        // the title over it had room to give. Longer names still may end in "…".
        gtk_label_set_ellipsize(buttonLabel.opaque, name.count <= 14 ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END)
        photopick_accessible_set_label(button, i18n("Album: {name}", ["name": name]))
    }

    /// The words over the album's name (empty: none); the album's name is then its subtitle.
    var title = "" {
        didSet {
            gtk_label_set_text(titleLabel.opaque, title)
            gtk_widget_set_visible(titleLabel, title.isEmpty ? 0 : 1)
            if title.isEmpty {
                gtk_widget_remove_css_class(widget, "album-switcher-compact")
                gtk_widget_add_css_class(buttonLabel, "title")
            } else {
                gtk_widget_add_css_class(widget, "album-switcher-compact")
                gtk_widget_remove_css_class(buttonLabel, "title")
            }
        }
    }
    let titleLabel: UnsafeMutablePointer<GtkWidget>

    func popup() { gtk_popover_popup(popover.cast()) }
    func popdown() { gtk_popover_popdown(popover.cast()) }

    /// The rows the search leaves, the best matches first (`AlbumSwitcherRow.matchRank`), then
    /// in the list's order: the order the list box shows them in.
    var matchingRows: [AlbumSwitcherRow] {
        rows.enumerated().compactMap { index, row in row.matchRank(query).map { (rank: $0, index: index, row: row) } }
            .sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }.map(\.row)
    }

    /// The list box's order while searching: best matches first, the list's order among equals.
    func searchOrder(_ first: UnsafeMutableRawPointer, _ second: UnsafeMutableRawPointer) -> Int32 {
        let firstKey = sortKeys[first] ?? (9, Int.max), secondKey = sortKeys[second] ?? (9, Int.max)
        return firstKey < secondKey ? -1 : firstKey > secondKey ? 1 : 0
    }

    func row(for listRow: UnsafeMutableRawPointer?) -> AlbumSwitcherRow? {
        guard let listRow else { return nil }
        let index = Int(gtk_list_box_row_get_index(listRow.assumingMemoryBound(to: GtkListBoxRow.self)))
        // (The date row, when sorted first, puts each row one further.)
        for place in [index - 1, index] where rows.indices.contains(place) && rows[place].widget.raw == listRow { return rows[place] }
        // A search sorts the list box: its index is then not the row's place in `rows`.
        return rows.first { $0.widget.raw == listRow }
    }

    func choose(_ row: AlbumSwitcherRow) {
        let album = row.summary.album
        popdown()
        setCurrent(album)
        onChoose?(album)
        onFocusContent?()
    }

    // MARK: The folder tree

    /// Whether `row` shows: a match of the search, or with no search, a row whose tree rows
    /// above it are all open.
    func isShown(_ row: AlbumSwitcherRow) -> Bool {
        guard query.isEmpty else { return row.matches(query) }
        var parent = row.entry.parent
        while let album = parent {
            guard expanded.contains(album) else { return false }
            parent = parents[album]
        }
        return true
    }

    /// Opens or closes the folders below `row`. The focus, if it was on a row that goes, goes
    /// to `row`.
    func setExpanded(_ row: AlbumSwitcherRow, _ open: Bool) {
        guard row.entry.hasChildren, expanded.contains(row.summary.album) != open else { return }
        let focusWasBelow = !open && rows.contains { gtk_widget_has_focus($0.widget) != 0 && isBelow($0, row) }
        if open { expanded.insert(row.summary.album) } else { expanded.remove(row.summary.album) }
        row.setExpanded(open)
        gtk_list_box_invalidate_filter(list.opaque)
        gtk_list_box_invalidate_headers(list.opaque)
        if focusWasBelow { gtk_widget_grab_focus(row.widget) }
        // Rows that came in ask for their covers once laid out.
        MainLoopDispatcher.shared.post { [weak self] in self?.updateCovers() }
    }

    /// Whether `row` is somewhere under `ancestor` in the tree.
    func isBelow(_ row: AlbumSwitcherRow, _ ancestor: AlbumSwitcherRow) -> Bool {
        var parent = row.entry.parent
        while let album = parent {
            if album == ancestor.summary.album { return true }
            parent = parents[album]
        }
        return false
    }

    /// Opens the tree rows above `album`, so that the list can show it.
    private func revealInTree(_ album: Album) {
        var parent = parents[album]
        var opened = false
        while let above = parent {
            if !expanded.contains(above) {
                expanded.insert(above)
                opened = true
            }
            parent = parents[above]
        }
        // (No list yet: it is made with these trees open.)
        guard opened, let list = madeParts?.list else { return }
        for row in rows { row.setExpanded(expanded.contains(row.summary.album)) }
        gtk_list_box_invalidate_filter(list.opaque)
        gtk_list_box_invalidate_headers(list.opaque)
    }

    /// Right on a folder: opens it, or when open, goes to its first row below. Left: closes it,
    /// or goes to the folder it is in. (As in GTK's tree lists and Files' tree view.)
    func keyOnRow(_ row: AlbumSwitcherRow, opening: Bool) -> Bool {
        guard query.isEmpty, row.section == .folders else { return false }
        if opening {
            guard row.entry.hasChildren else { return false }
            if !row.isExpanded { setExpanded(row, true) }
            else if let first = rows.first(where: { $0.entry.parent == row.summary.album }) { gtk_widget_grab_focus(first.widget) }
            return true
        }
        if row.entry.hasChildren && row.isExpanded {
            setExpanded(row, false)
            return true
        }
        guard let parent = row.entry.parent, let above = rows.first(where: { $0.summary.album == parent }) else { return false }
        gtk_widget_grab_focus(above.widget)
        return true
    }

    /// The rows shown, in the list's order (a search's order while searching).
    var shownRows: [AlbumSwitcherRow] { query.isEmpty ? rows.filter(isShown) : matchingRows }

    /// The date row was chosen.
    func goToDate() {
        guard let destination else { return }
        popdown()
        onGoToDate?(destination)
    }

    // MARK: Searching

    /// Applies the entry's text now (the entry reports changes after a short delay; Enter and
    /// Down must not act on the old text).
    func applySearch() {
        let text = String(cString: gtk_editable_get_text(search.opaque)).lowercased()
        guard text != query else { return }
        query = text
        destination = DateDestination.parse(text)
        if let destination { gtk_label_set_text(dateLabel.opaque, destination.title) }
        gtk_widget_set_visible(dateRow, destination != nil ? 1 : 0)
        for row in rows { row.setFlat(!query.isEmpty) }
        // Each row's place, worked out once: the sort compares rows thousands of times, and
        // working it out at each comparison (a name split into words, a row found by its
        // widget) took 0.3-0.5 s per key typed over 330 folders (a debug build).
        computeSortKeys()
        gtk_list_box_invalidate_filter(list.opaque)
        gtk_list_box_invalidate_sort(list.opaque)
        gtk_list_box_invalidate_headers(list.opaque)
        // The best match is the first one: show the top of the list.
        if let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) { gtk_adjustment_set_value(adjustment, 0) }
    }

    private func computeSortKeys() {
        sortKeys = [UnsafeMutableRawPointer(dateRow): (-1, -1)]
        for (index, row) in rows.enumerated() { sortKeys[UnsafeMutableRawPointer(row.widget)] = (row.matchRank(query) ?? 9, index) }
    }

    /// Enter in the search entry: the first match (Enter on a row: that row).
    func chooseFirstMatch() {
        // Return on a row comes here too: the entry's key capture hands it every key that is not
        // a movement, and its text takes Return as its own. The row is meant.
        if let focused = rows.first(where: { gtk_widget_has_focus($0.widget) != 0 }) {
            choose(focused)
            return
        }
        applySearch()
        // A date typed is what was meant, before a folder of the same name.
        if destination != nil { return goToDate() }
        if let first = matchingRows.first { choose(first) } else { gtk_widget_error_bell(search) }
    }

    // MARK: Opening and closing

    func opened() {
        updateRows()
        // Up to 70% of the window's height (less the search entry, the arrow and the popover's
        // margins: 99 px under libadwaita's style sheet, 87 under GTK's): long lists scroll.
        if let root = gtk_widget_get_root(widget) {
            let height = gtk_widget_get_height(UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self))
            gtk_scrolled_window_set_max_content_height(scroller.opaque, max(160, Int32(Double(height) * 0.7) - 100))
        }
    }

    func mapped() {
        gtk_widget_grab_focus(search)
        // Scroll to the open album once the list is laid out (a frame or two).
        scrollTicks = 0
        lastScrollTarget = -1
        if scrollTick == 0 {
            scrollTick = gtk_widget_add_tick_callback(scroller, { _, _, data in
                MainActor.assumeIsolated {
                    guard let switcher = Unmanaged<WeakBox>.fromOpaque(data!).takeUnretainedValue().switcher else { return 0 }
                    return switcher.scrollToCurrentStep() ? 1 : 0
                }
            }, Unmanaged.passRetained(WeakBox(self)).toOpaque(), { data in
                MainActor.preconditionIsolated()
                Unmanaged<WeakBox>.fromOpaque(data!).release()
            })
        }
    }

    private var scrollTick: guint = 0

    /// Centres the open album's row; true to be called again on the next frame. Allocations can
    /// be a frame old when the popover opens, so this repeats until the target holds still.
    private func scrollToCurrentStep() -> Bool {
        scrollTicks += 1
        guard scrollTicks < 30, let adjustment = gtk_scrolled_window_get_vadjustment(scroller.opaque) else {
            scrollTick = 0
            return false
        }
        guard let row = rows.first(where: \.isCurrent), gtk_widget_get_mapped(row.widget) != 0,
              let bounds = bounds(of: row), bounds.size.height > 0 else { return true }
        let page = gtk_adjustment_get_page_size(adjustment)
        let upper = gtk_adjustment_get_upper(adjustment)
        let target = max(0, min(upper - page, Double(bounds.origin.y + bounds.size.height / 2) - page / 2))
        gtk_adjustment_set_value(adjustment, target)
        updateCovers()
        if target == lastScrollTarget {
            scrollTick = 0
            return false
        }
        lastScrollTarget = target
        return true
    }

    func closed() {
        // The next opening starts with the whole list.
        isClosing = true
        gtk_editable_set_text(search.opaque, "")
        isClosing = false
        applySearch()
    }

    /// The entry is being cleared for the next opening: the focus must stay where it went.
    private(set) var isClosing = false

    // MARK: Covers

    /// Asks for the covers of the rows on screen and half a screen around; cancels the others.
    func updateCovers() {
        guard let parts = madeParts, gtk_widget_get_mapped(parts.list) != 0,
              let adjustment = gtk_scrolled_window_get_vadjustment(parts.scroller.opaque) else {
            rows.forEach { $0.cancelCover() }
            return
        }
        let page = gtk_adjustment_get_page_size(adjustment)
        let top = gtk_adjustment_get_value(adjustment) - page / 2, bottom = top + page * 2
        for row in rows {
            // Rows the search hides are unmapped; rows not laid out yet have no height.
            if page > 0, gtk_widget_get_mapped(row.widget) != 0, let bounds = bounds(of: row), bounds.size.height > 0,
               Double(bounds.origin.y + bounds.size.height) >= top, Double(bounds.origin.y) <= bottom, let covers {
                row.loadCover(lookingUp: covers.paths, loader: covers.loader)
            } else {
                row.cancelCover()
            }
        }
    }

    func bounds(of row: AlbumSwitcherRow) -> graphene_rect_t? {
        var bounds = graphene_rect_t()
        return gtk_widget_compute_bounds(row.widget, list, &bounds) != 0 ? bounds : nil
    }
}
