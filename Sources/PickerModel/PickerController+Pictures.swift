// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import PhotoLibrary
import Thumbnails

/// What a thumbnail said of its file, when the file itself is the problem.
public enum FileProblem: Equatable, Sendable {
    case damaged, unreadable, tooLarge, gone

    /// Nil for failures that say nothing about the file (cancelled, or of the moment: a busy
    /// thumbnailer, no room for a temporary file), which may work next time.
    public init?(_ failure: ThumbnailFailure) {
        switch failure {
        case .undecodable, .knownFailure, .thumbnailerFailed: self = .damaged
        case .unreadable: self = .unreadable
        case .tooLarge: self = .tooLarge
        case .vanished: self = .gone
        case .temporary, .cancelled: return nil
        }
    }

    /// A sentence for the toast that refuses to pick it. (Computed: the words follow the
    /// language in use when they are shown.)
    public var explanation: String {
        switch self {
        case .damaged: i18n("This file is damaged and cannot be shown")
        case .unreadable: i18n("This file cannot be read")
        case .tooLarge: i18n("This image is too large to show")
        case .gone: i18n("This file is no longer there")
        }
    }
}

/// The return leg of a cell's picture: what it says of the file is a rule of picking, kept
/// here beside the selection it changes, not in the view that draws it.
extension PickerController {
    /// The picture of `asset` came back (`nil` failure: it was shown). A problem of the file's
    /// own makes it unpickable (the selection refuses it, with why) until a picture of it
    /// comes (copied in since, its permissions mended). A failure of the moment says nothing,
    /// and nothing is judged of a file on a disk that is not connected: it is not there to be.
    /// Returns the file's problem, for the cell to say.
    @discardableResult
    public func pictureCame(for asset: Asset, failure: ThumbnailFailure?) -> FileProblem? {
        guard let failure else {
            forgetFileProblem(of: asset.id)
            return nil
        }
        guard let problem = FileProblem(failure), !isOffline(asset.path) else { return nil }
        fileProblems[asset.id] = problem
        selection.refuse(asset.id, because: problem.explanation)
        return problem
    }

    /// Why the file of `id` cannot be shown, as its last picture said.
    public func fileProblem(of id: Int64) -> FileProblem? { fileProblems[id] }

    /// Judges the file again at its next picture (its disk came back, or went).
    public func forgetFileProblem(of id: Int64) {
        fileProblems[id] = nil
        selection.allow(id)
    }
}
