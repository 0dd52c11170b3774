// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// The catalogues in po/ against the messages the code marks today: every language translates
/// every message, keeps its placeholders, and compiles. (LocalizedWindowTests shows them.)
final class TranslationTests: XCTestCase {
    override func setUpWithError() throws {
        for tool in ["/usr/bin/xgettext", "/usr/bin/msgfmt"] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is missing: run scripts/bootstrap")
            throw XCTSkip("no \(tool)")
        }
    }

    /// A file that marks messages but is missing from po/POTFILES.in never reaches a translator.
    func testEveryFileThatMarksMessagesIsListedForTranslators() throws {
        let root = TestSupport.packageRoot
        let listed = try String(contentsOf: root.appendingPathComponent("po/POTFILES.in"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        for file in listed {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent(file).path), "po/POTFILES.in lists \(file), which is gone")
        }
        let sources = FileManager.default.enumerator(at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)!
        var marking: [String] = []
        for case let url as URL in sources where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            if text.contains("i18n(\"") || text.contains("N_(\"") {
                marking.append(String(url.path.dropFirst(root.path.count + 1)))
            }
        }
        XCTAssertGreaterThan(marking.count, 10)
        XCTAssertEqual(Set(marking).subtracting(listed).sorted(), [], "files with messages missing from po/POTFILES.in")
    }

    func testEveryLanguageTranslatesEveryMessageAndKeepsItsPlaceholders() throws {
        let marked = try Catalogue.markedMessages()
        XCTAssertGreaterThan(marked.count, 100, "the window's words are marked")
        XCTAssertTrue(marked.contains { $0.message == "Pick Photos" }, "the window title is among them")
        XCTAssertTrue(marked.contains { $0.message == "Recents" }, "and the albums' names")
        XCTAssertTrue(marked.contains { $0.message == "Browse your photos and videos and pick some" }, "and the desktop file's comment")
        XCTAssertEqual(Set(Catalogue.languages), ["ru", "ko"])
        let forms = ["ru": 3, "ko": 1]
        for language in Catalogue.languages {
            let catalogue = try Catalogue(language: language)
            var missing: [String] = [], broken: [String] = []
            for message in marked {
                guard let entry = catalogue.entries.first(where: { $0.message == message.message && $0.plural == message.plural }),
                      !entry.isFuzzy, !entry.translations.isEmpty, entry.translations.allSatisfy({ !$0.isEmpty })
                else { missing.append(message.message); continue }
                if message.plural != nil { XCTAssertEqual(entry.translations.count, forms[language], "\(language): plural forms of “\(message.message)”") }
                let wanted = Catalogue.placeholders(in: message.message).union(Catalogue.placeholders(in: message.plural ?? ""))
                for translation in entry.translations where Catalogue.placeholders(in: translation) != wanted {
                    broken.append("“\(message.message)” → “\(translation)”")
                }
                // A mnemonic (_Choose) keeps one in the translation, or the key stops working.
                if message.message.contains("_"), !message.message.contains(" "), !entry.translations[0].contains("_") {
                    broken.append("“\(message.message)” lost its mnemonic: “\(entry.translations[0])”")
                }
            }
            XCTAssertEqual(missing, [], "\(language).po lacks translations")
            XCTAssertEqual(broken, [], "\(language).po changes placeholders")
            let stale = catalogue.entries.filter { entry in !marked.contains { $0.message == entry.message } }.map(\.message)
            XCTAssertEqual(stale, [], "\(language).po translates messages the code no longer has (meson compile photopick-update-po)")
            let compiled = TestSupport.temporaryDirectory("catalogue-\(language)")
            defer { try? FileManager.default.removeItem(at: compiled) }
            XCTAssertNoThrow(try catalogue.compile(into: compiled), "msgfmt --check accepts \(language).po")
        }
    }
}
