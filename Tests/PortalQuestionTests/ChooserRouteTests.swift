// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import PhotoLibrary
@testable import PortalBackend
import XCTest

/// Which questions the picker answers and which go to the desktop's chooser, and how a call's
/// options are read: GVariants written in GLib's text format, as the portal sends them.
final class ChooserRouteTests: XCTestCase {
    private func question(_ options: String, method: ChooserQuestion.Method = .openFile, parent: String = "") throws -> ChooserQuestion {
        let text = "(objectpath '/org/freedesktop/portal/desktop/request/1_1/t', '', '\(parent)', 'Title', \(options))"
        var error: UnsafeMutablePointer<GError>?
        let type = g_variant_type_new("(osssa{sv})")
        defer { g_variant_type_free(type) }
        guard let value = g_variant_parse(type, text, nil, nil, &error) else {
            defer { g_error_free(error) }
            throw ChooserQuestionError(reason: String(cString: error!.pointee.message))
        }
        g_variant_ref_sink(value)
        defer { g_variant_unref(value) }
        return try ChooserQuestion(parameters: value, method: method)
    }

    private func route(_ options: String, method: ChooserQuestion.Method = .openFile, rule: ChooserRoute.AppRule? = nil) throws -> ChooserRoute {
        ChooserRoute.decide(try question(options, method: method), rule: rule)
    }

    func testPhotoQuestionsGoToThePicker() throws {
        // GTK's own: a MIME family, and suffixes written as case-insensitive globs.
        XCTAssertEqual(try route("{'filters': <[('Images', [(uint32 1, 'image/*'), (uint32 0, '*.[jJ][pP][gG]')])]>}"), .picker)
        XCTAssertEqual(try route("{'filters': <[('Photos', [(uint32 0, '*.jpg'), (uint32 0, '*.HEIC')]), ('Videos', [(uint32 1, 'video/mp4')])]>}"), .picker)
        // current_filter alone is the only filter.
        XCTAssertEqual(try route("{'current_filter': <('PNG', [(uint32 1, 'image/png')])>}"), .picker)
    }

    func testEverythingElseGoesToTheDesktop() throws {
        XCTAssertEqual(try route("@a{sv} {}"), .desktop("OpenFile without a filter: any file"))
        XCTAssertEqual(try route("{'filters': <[('Images', [(uint32 1, 'image/*')]), ('All files', [(uint32 0, '*')])]>}"),
                       .desktop("filter “All files” admits other files (*)"))
        XCTAssertEqual(try route("{'filters': <[('Mixed', [(uint32 0, '*.jpg'), (uint32 0, '*.pdf')])]>}"), .desktop("filter “Mixed” admits other files (*.pdf)"))
        XCTAssertEqual(try route("{'filters': <[('Odd', [(uint32 0, 'IMG_*')])]>}"), .desktop("filter “Odd” admits other files (IMG_*)"))
        XCTAssertEqual(try route("{'directory': <true>, 'filters': <[('Images', [(uint32 1, 'image/*')])]>}"), .desktop("OpenFile for a folder"))
        XCTAssertEqual(try route("{'current_name': <'a.jpg'>}", method: .saveFile), .desktop("SaveFile: saving is the desktop chooser's"))
        XCTAssertEqual(try route("@a{sv} {}", method: .saveFiles), .desktop("SaveFiles: saving is the desktop chooser's"))
    }

    func testAnAppsRuleDecidesFirst() throws {
        let withAll = "{'filters': <[('Images', [(uint32 1, 'image/*')]), ('All files', [(uint32 0, '*')])]>}"
        XCTAssertEqual(try route(withAll, rule: .always), .picker)
        XCTAssertEqual(try route("{'filters': <[('Images', [(uint32 1, 'image/*')])]>}", rule: .never), .desktop("portal.conf says “never” for app “”"))
        // Documents only: even "always" cannot answer them with photos.
        XCTAssertEqual(try route("{'filters': <[('PDF', [(uint32 0, '*.pdf')])]>}", rule: .always), .desktop("no filter admits a photo or a video"))
        // Saving is never the picker's.
        XCTAssertEqual(try route("@a{sv} {}", method: .saveFile, rule: .always), .desktop("SaveFile: saving is the desktop chooser's"))
    }

    func testOptionsAreReadWithTheirTypes() throws {
        let read = try question("""
            {'multiple': <true>, 'modal': <false>, 'accept_label': <'_Attach'>,
             'filters': <[('A', [(uint32 1, 'image/png')]), ('B', [(uint32 0, '*.gif')])]>,
             'current_filter': <('B', [(uint32 0, '*.gif')])>,
             'choices': <[('c', 'Colour', [('r', 'Red'), ('g', 'Green')], 'g'), ('k', 'Keep', @a(ss) [], '')]>,
             'current_folder': <b'/home/me/Pictures'>}
            """, parent: "x11:3a0001f")
        XCTAssertTrue(read.multiple)
        XCTAssertFalse(read.modal)
        XCTAssertEqual(read.acceptLabel, "_Attach")
        XCTAssertEqual(read.offeredFilters.first, 1)
        XCTAssertEqual(read.choices.map(\.initialValue), ["g", "false"])
        XCTAssertEqual(read.currentFolder, Array("/home/me/Pictures".utf8))
        XCTAssertEqual(read.parent, .x11(0x3a0001f))
        // A current_filter named as one of the list but written differently is found by its name.
        XCTAssertEqual(try question("{'filters': <[('A', [(uint32 1, 'image/png')])]>, 'current_filter': <('A', [(uint32 1, 'image/x-png')])>}").offeredFilters.first, 0)
        // Save methods never pick several.
        XCTAssertFalse(try question("{'multiple': <true>}", method: .saveFile).multiple)
    }

    func testBadOptionsAreRefusedWithAReason() throws {
        XCTAssertThrowsError(try question("{'multiple': <'yes'>}")) { error in
            XCTAssertEqual((error as? ChooserQuestionError)?.reason, "OpenFile: option “multiple” is of type s, not b")
        }
        XCTAssertThrowsError(try question("{'filters': <[('X', @a(us) [])]>}")) { error in
            XCTAssertEqual((error as? ChooserQuestionError)?.reason, "filter “X” has no rule")
        }
        XCTAssertThrowsError(try question("{'filters': <[('X', [(uint32 2, 'a')])]>}"))
        XCTAssertThrowsError(try question("{'current_filter': <('', [(uint32 1, 'image/png')])>}"))
    }

    func testParentWindows() {
        XCTAssertEqual(ChooserQuestion.Parent(""), .none)
        XCTAssertEqual(ChooserQuestion.Parent("x11:1e00003"), .x11(0x1e00003))
        XCTAssertEqual(ChooserQuestion.Parent("wayland:abc-123"), .wayland("abc-123"))
        for odd in ["x11:", "x11:zz", "x11:0", "x11:-5", "x11:0x12", "x11:12345678901234567", "wayland:", "gtk:1", "1234"] {
            XCTAssertEqual(ChooserQuestion.Parent(odd), .unknown(odd), odd)
        }
    }

    func testALongTitleIsCut() throws {
        let long = String(repeating: "a", count: 100_000)
        let text = "(objectpath '/r/t', 'app', '', '\(long)', @a{sv} {})"
        let type = g_variant_type_new("(osssa{sv})")
        defer { g_variant_type_free(type) }
        let value = g_variant_ref_sink(g_variant_parse(type, text, nil, nil, nil))!
        defer { g_variant_unref(value) }
        let read = try ChooserQuestion(parameters: value, method: .openFile)
        XCTAssertEqual(read.title.count, ChooserQuestion.longestTitle + 1)
    }

    func testPatternsWithAFixedSuffixNameTheirType() {
        XCTAssertEqual(ContentType.guess(namePattern: "*.[jJ][pP][gG]")?.mimeType, "image/jpeg")
        XCTAssertEqual(ContentType.guess(namePattern: "*.PNG")?.mimeType, "image/png")
        XCTAssertEqual(ContentType.guess(namePattern: "*.[mM][kK][vV]")?.mimeType, "video/x-matroska")
        XCTAssertEqual(ContentType.guess(namePattern: "*.pdf")?.mimeType, "application/pdf")
        for open in ["*", "*.*", "IMG_*", "*.jp?", "*.[jp]pg", "*.", "photo.[!x]pg"] {
            XCTAssertNil(ContentType.guess(namePattern: open), open)
        }
    }
}
