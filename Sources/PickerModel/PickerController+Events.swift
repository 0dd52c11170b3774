// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary

/// What the controller tells the widgets, in order, on the GTK thread. One stream that any
/// number of observers hear, each until it cancels its observation: a second listener (the
/// embedded widget beside the view, a test) no longer replaces the first, as a single `on…`
/// closure each did.
public enum PickerEvent {
    /// The album list or the open album changed (the switcher follows).
    case albumsChanged
    /// The model is about to hold another album (the grid may make fewer cells for it).
    case albumOpening
    /// The model now holds another album, from its start.
    case albumOpened
    /// A first scan has dated every file: the newest of Recents, newest first (their thumbnails
    /// can be made before the album opens).
    case newestKnown([FilePath])
    /// A change is about to go into the open album (`contentChanged` follows).
    case contentWillChange
    /// The open album's contents changed, or a change turned out to touch nothing shown.
    case contentChanged
    /// Progress of a first scan, and the number of files expected.
    case scanProgress(ScanProgress, expected: Int)
    /// The scan is over (its last changes may still be on their way into the model).
    case scanFinished
    /// Photos arrived above what the person looks at: how many since they last were at the top.
    case newerAbove(Int)
    /// A change moved the asset at the top of the view from one grid position to another
    /// (photos arrived or left above it): the view scrolls by the difference.
    case anchorMoved(from: Int, to: Int)
    /// Something the person could act on, in words: said once.
    case problem(String)
    /// A passing word, not a problem: a capture saved but not picked.
    case notice(String)
    /// A new capture's id once the grid shows it (the view scrolls to it and focuses it).
    case captureShown(Int64)
    /// A library folder on another machine stopped answering or answers again (`isOffline`):
    /// the cells of its photos follow.
    case offlineChanged
    /// A folder on another machine that does not answer, said once, in words (until it answers).
    case folderOffline(FilePath, String)
}

extension PickerController {
    /// Calls `handler` with every event from now until the observation is cancelled or let go,
    /// or the controller closes.
    public func observe(_ handler: @escaping (PickerEvent) -> Void) -> Subscription {
        subscribers.subscribe(handler)
    }

    func publish(_ event: PickerEvent) {
        // (A handler may cancel an observation or close the controller while it runs.)
        subscribers.publish(event)
    }
}
