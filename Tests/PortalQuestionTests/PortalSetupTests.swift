// SPDX-License-Identifier: GPL-3.0-or-later
import Basics
import Foundation
@testable import PortalBackend
import XCTest

/// `photopick portal enable` on the portal versions Debian 12 does not have, in a folder of
/// system files written here as those versions' packages ship them, with the choice each version
/// then makes (Debian's own 1.16 is tested for real in PortalBackendTests).
final class PortalSetupTests: XCTestCase {
    private var root: URL!
    private var system: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("portal-setup-\(getpid())-\(UUID().uuidString)")
        system = root.appendingPathComponent("usr/share/xdg-desktop-portal")
        try FileManager.default.createDirectory(at: system.appendingPathComponent("portals"), withIntermediateDirectories: true)
        try write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.gnome\nInterfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.Screenshot;\nUseIn=gnome\n", "portals/gnome.portal")
        try write("[portal]\nDBusName=org.freedesktop.impl.portal.desktop.gtk\nInterfaces=org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.Settings;\nUseIn=gnome\n", "portals/gtk.portal")
        try write("[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\n", "gnome-portals.conf")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func write(_ text: String, _ name: String) throws {
        try text.write(to: system.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func setup(_ version: PortalVersion, installed: Bool = true) throws -> PortalSetup {
        if installed { try PortalSetup.installedPortalFile.write(to: system.appendingPathComponent("portals/photopick.portal"), atomically: true, encoding: .utf8) }
        return PortalSetup(.init(version: version, desktops: ["gnome"], configHome: FilePath(root.appendingPathComponent("home/.config").path),
                                 dataHome: FilePath(root.appendingPathComponent("home/.local/share").path),
                                 portalsFolder: FilePath(system.appendingPathComponent("portals").path), configFolders: [FilePath(system.path)]))
    }

    func testTheInstalledFileIsTheOneInData() throws {
        XCTAssertEqual(PortalSetup.installedPortalFile,
                       try String(contentsOf: TestSupportPaths.root.appendingPathComponent("data/portal/photopick.portal"), encoding: .utf8))
    }

    /// 1.17 to 1.21.0: the first portals.conf found wins outright, so the user's file repeats the
    /// system one's lines and adds FileChooser.
    func testFrom1_17TheUsersConfigurationRepeatsTheSystemsOne() throws {
        let setup = try setup(PortalVersion(1, 18, 4))
        XCTAssertEqual(setup.chosenBackend(), "gnome")
        let changes = try setup.changes(backendPortalFile: PortalSetup.installedPortalFile)
        let path = FilePath(root.appendingPathComponent("home/.config/xdg-desktop-portal/gnome-portals.conf").path)
        guard case .file(path, let text)? = changes.first, changes.count == 1 else { return XCTFail("\(changes)") }
        XCTAssertTrue(text.hasSuffix("[preferred]\ndefault=gnome;gtk;\norg.freedesktop.impl.portal.Secret=gnome-keyring\norg.freedesktop.impl.portal.FileChooser=photopick\n"), text)
        _ = try setup.enable(changes)
        XCTAssertEqual(setup.chosenBackend(), "photopick")
        XCTAssertEqual(try setup.disable(), [path])
        XCTAssertEqual(setup.chosenBackend(), "gnome")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("home/.config").path))
    }

    /// From 1.21.1 files merge per interface: one line, in the person's own portals.conf, which
    /// keeps everything else it said.
    func testFrom1_21_1OneLineInTheUsersFile() throws {
        let setup = try setup(PortalVersion(1, 21, 1))
        let own = root.appendingPathComponent("home/.config/xdg-desktop-portal/portals.conf")
        try FileManager.default.createDirectory(at: own.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[preferred]\norg.freedesktop.impl.portal.Screenshot=gnome\n".write(to: own, atomically: true, encoding: .utf8)
        let changes = try setup.changes(backendPortalFile: PortalSetup.installedPortalFile)
        XCTAssertEqual(changes, [.line(FilePath(own.path), section: "preferred", line: "org.freedesktop.impl.portal.FileChooser=photopick")])
        _ = try setup.enable(changes)
        XCTAssertEqual(try String(contentsOf: own, encoding: .utf8),
                       "[preferred]\norg.freedesktop.impl.portal.FileChooser=photopick\norg.freedesktop.impl.portal.Screenshot=gnome\n")
        XCTAssertEqual(setup.chosenBackend(), "photopick")
        _ = try setup.disable()
        XCTAssertEqual(try String(contentsOf: own, encoding: .utf8), "[preferred]\norg.freedesktop.impl.portal.Screenshot=gnome\n")
    }

    /// Installed under another prefix, the .portal file is where only 1.20.1 and later look
    /// ($XDG_DATA_HOME); before that, enable says why it cannot.
    func testAPortalFileOutsideThePortalsFolder() throws {
        let late = try setup(PortalVersion(1, 20, 1), installed: false)
        let changes = try late.changes(backendPortalFile: PortalSetup.installedPortalFile)
        XCTAssertEqual(changes.first?.path, FilePath(root.appendingPathComponent("home/.local/share/xdg-desktop-portal/portals/photopick.portal").path))
        XCTAssertThrowsError(try setup(PortalVersion(1, 18, 0), installed: false).changes(backendPortalFile: PortalSetup.installedPortalFile))
    }

    /// 1.16: UseIn and file names decide; enabling makes the private folder.
    func testOn1_16GNOMEsBackendsComeFirstUntilEnabled() throws {
        let setup = try setup(PortalVersion(1, 16, 0))
        XCTAssertEqual(setup.chosenBackend(), "gnome")
        let changes = try setup.changes(backendPortalFile: PortalSetup.installedPortalFile)
        XCTAssertEqual(changes.map(\.path.lastComponentString), ["photopick.portal", "gnome.portal", "gtk.portal", "photopick.conf"])
        _ = try setup.enable(changes)
        var enabled = setup.environment
        enabled.portalsFolder = setup.privatePortals
        XCTAssertEqual(PortalSetup(enabled).chosenBackend(), "photopick")
    }

    func testVersions() {
        XCTAssertEqual(PortalVersion("xdg-desktop-portal 1.16.0\n"), PortalVersion(1, 16, 0))
        XCTAssertTrue(PortalVersion(1, 21, 0) < PortalVersion(1, 21, 1))
        XCTAssertNil(PortalVersion("no version"))
    }
}

private extension FilePath {
    var lastComponentString: String { String(decoding: lastComponent, as: UTF8.self) }
}

enum TestSupportPaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
