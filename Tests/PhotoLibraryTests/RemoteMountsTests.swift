// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import PhotoLibrary
import TestSupport
import XCTest

/// Which library folders live on another machine, judged by the file system's type in
/// /proc/self/mountinfo and never by the path (issue 22).
final class RemoteMountsTests: XCTestCase {
    private let table = """
        22 1 0:21 / /proc rw,nosuid - proc proc rw
        30 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
        50 30 0:40 / /mnt/nas rw - nfs4 nas:/photos rw
        51 50 8:17 / /mnt/nas/usb rw - ext4 /dev/sdb1 rw
        52 30 0:41 / /home/ann/phone rw - fuse.sshfs ann@phone:/DCIM rw
        53 30 0:42 / /run/user/1000/gvfs rw - fuse.gvfsd-fuse gvfsd-fuse rw
        54 30 0:43 / /run/user/1000/doc rw - fuse.portal portal rw
        55 30 0:44 / /media/Shared\\040Photos rw - cifs //nas/photos rw
        56 30 0:45 / /home/ann/Vault rw - fuse.gocryptfs vault rw
        57 30 0:46 / /mnt/later rw - nfs fileserver:/old rw
        58 30 8:33 / /mnt/later rw - ext4 /dev/sdc1 rw
        """

    func testNetworkAndRemoteFUSEFoldersAreRemoteAndLocalOnesAreNot() {
        let mounts = SystemMounts(mountInfo: Array(table.utf8))
        let cases: [(String, String?)] = [
            ("/mnt/nas", "nfs4"), ("/mnt/nas/2024/June", "nfs4"),
            ("/mnt/nas/usb/DCIM", nil),  // a disk plugged into the folder: its own, deeper mount
            ("/home/ann/phone/Camera", "fuse.sshfs"),
            ("/run/user/1000/gvfs/sftp:host=nas/photos", "fuse.gvfsd-fuse"),
            ("/run/user/1000/doc/abc/photo.jpg", nil),  // the document portal's view of local files
            ("/media/Shared Photos/2023", "cifs"),
            ("/home/ann/Vault/private", nil),  // an encrypted folder, on this disk
            ("/mnt/later/photos", nil),  // mounted over: the later, local mount is what is there
            ("/home/ann/Pictures", nil), ("/mnt/nasty", nil),  // a name that only starts like a mount
        ]
        for (folder, expected) in cases {
            XCTAssertEqual(mounts.remoteType(of: FilePath(folder)), expected, folder)
        }
        XCTAssertEqual(Set(mounts.remoteMounts.keys), [FilePath("/mnt/nas"), FilePath("/home/ann/phone"),
                                                       FilePath("/run/user/1000/gvfs"), FilePath("/media/Shared Photos")])
        XCTAssertEqual(mounts.virtualMountPoints, [FilePath("/proc")], "the kernel's own views are still told apart")
    }

    func testALinkIntoARemoteMountIsRemote() throws {
        let work = TestSupport.temporaryDirectory("remote-link")
        defer { try? FileManager.default.removeItem(at: work) }
        let mountPoint = work.appendingPathComponent("nas")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let link = work.appendingPathComponent("Photos")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: mountPoint)
        // This test's folder stands for a mounted NFS share.
        let real = try XCTUnwrap(mountPoint.path.withCString { path -> String? in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        })
        let mounts = SystemMounts(mountInfo: Array("30 1 8:1 / / rw - ext4 /dev/sda1 rw\n61 30 0:50 / \(real) rw - nfs4 nas:/p rw\n".utf8))
        XCTAssertNil(mounts.remoteType(of: FilePath(link.path)), "the link itself is on the local disk")
        XCTAssertTrue(mounts.isRemote(FilePath(link.path)), "where it leads is not")
        XCTAssertFalse(mounts.isRemote(FilePath(work.path)))
    }

    func testThisMachinesRootIsLocal() {
        XCTAssertFalse(SystemMounts.current.isRemote(FilePath("/")))
        XCTAssertNil(SystemMounts.current.remoteType(of: FilePath("/proc")))
    }

    /// One judge of remoteness for the picker's badges and the thumbnail loader's downloads:
    /// a file is remote by the mount its own folder is on (the picker judged by its library
    /// folder, the loader by the file's, and a phone mounted inside ~/Pictures got a download's
    /// turn with no cloud badge); a location URI always is; a mount made since is seen once the
    /// table is read again, as each new picker asks.
    func testOneJudgeSaysWhichFilesAreRemoteByTheirOwnFolder() {
        final class Table: @unchecked Sendable {
            var text: String
            var reads = 0
            init(_ text: String) { self.text = text }
        }
        let table = Table("30 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n52 30 0:41 / /home/ann/Pictures/Phone rw - fuse.sshfs ann@phone:/DCIM rw\n")
        let judge = RemotePaths { table.reads += 1; return SystemMounts(mountInfo: Array(table.text.utf8)) }
        XCTAssertFalse(judge.isRemote(FilePath("/home/ann/Pictures/a.jpg")))
        XCTAssertTrue(judge.isRemote(FilePath("/home/ann/Pictures/Phone/b.jpg")))
        XCTAssertTrue(judge.isRemote(FilePath("/home/ann/Pictures/Phone/2024/c.jpg")))
        XCTAssertTrue(judge.isRemote(FilePath("sftp://nas/photos/d.jpg")))
        XCTAssertFalse(judge.isRemote(FilePath("/mnt/nas/e.jpg")))
        XCTAssertEqual(table.reads, 1, "the table is read once")
        table.text += "50 30 0:40 / /mnt/nas rw - nfs4 nas:/photos rw\n"
        XCTAssertFalse(judge.isRemote(FilePath("/mnt/nas/e.jpg")), "judged already")
        judge.reread()
        XCTAssertTrue(judge.isRemote(FilePath("/mnt/nas/e.jpg")), "mounted since, and the table read again")
        XCTAssertEqual(table.reads, 2)
    }
}
