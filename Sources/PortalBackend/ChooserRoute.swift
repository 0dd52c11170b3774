// SPDX-License-Identifier: GPL-3.0-or-later
import PhotoLibrary

/// Who answers a call: Photopick's picker, or the desktop's own chooser (relayed). Photopick
/// answers only what a photo picker is for: opening photos or videos. Everything else (saving, a
/// folder, any file, a list of filters with "All files" in it) goes to the chooser the person
/// would have had without Photopick: the portal binds one backend per interface, so Photopick
/// must answer those too, and the way to answer them is not to change them.
public enum ChooserRoute: Equatable, Sendable {
    case picker
    /// To the desktop's chooser, and why (for the log).
    case desktop(String)

    /// The person's rules per app (`portal.conf`): an app always answered by the picker when
    /// it asks to open files (`always`), or never (`never`); by the rules above otherwise.
    public enum AppRule: String, Sendable {
        case always, never
    }

    public static func decide(_ question: ChooserQuestion, rule: AppRule? = nil) -> ChooserRoute {
        switch question.method {
        case .saveFile, .saveFiles: return .desktop("\(question.method.rawValue): saving is the desktop chooser's")
        case .openFile: break
        }
        if question.directory { return .desktop("OpenFile for a folder") }
        if rule == .never { return .desktop("portal.conf says “never” for app “\(question.appID)”") }
        let (filters, _) = question.offeredFilters
        if rule == .always {
            // (A question of documents alone still goes to the desktop's chooser: a picker of
            // photos cannot answer it.)
            if !filters.isEmpty, !filters.contains(where: { $0.rules.contains(where: admitsMedia) }) {
                return .desktop("no filter admits a photo or a video")
            }
            return .picker
        }
        guard !filters.isEmpty else { return .desktop("OpenFile without a filter: any file") }
        for filter in filters {
            if let other = filter.rules.first(where: { !admitsOnlyMedia($0) }) {
                return .desktop("filter “\(filter.name)” admits other files (\(other))")
            }
        }
        return .picker
    }

    /// Whether every file a rule admits is a photo or a video: a MIME type of the image or video
    /// family, or a pattern whose suffix is fixed and names one (`*.jpg`, `*.[jJ][pP][gG]`).
    static func admitsOnlyMedia(_ rule: ChooserQuestion.Filter.Rule) -> Bool {
        switch rule {
        case .mimeType(let type): return type.hasPrefix("image/") || type.hasPrefix("video/")
        case .pattern(let pattern): return ContentType.guess(namePattern: pattern)?.isMedia == true
        }
    }

    /// Whether a rule admits any photo or video at all (`*` does).
    static func admitsMedia(_ rule: ChooserQuestion.Filter.Rule) -> Bool {
        switch rule {
        case .mimeType(let type):
            return type.hasPrefix("image/") || type.hasPrefix("video/") || type == "*/*" || type == "*"
        case .pattern(let pattern): return ContentType.guess(namePattern: pattern)?.isMedia ?? true
        }
    }
}

extension ChooserQuestion.Filter.Rule: CustomStringConvertible {
    public var description: String {
        switch self {
        case .pattern(let pattern): return pattern
        case .mimeType(let type): return type
        }
    }
}
