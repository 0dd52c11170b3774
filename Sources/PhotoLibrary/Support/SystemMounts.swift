// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc

/// The mount points of the kernel's virtual file systems (/proc, /sys, /dev, cgroups …), from
/// /proc/self/mountinfo: a library walk never enters them (`--library /` would otherwise read
/// /proc and /sys, which hold no photos and never end). And the mounts whose files live on
/// another machine (NFS, SMB, sshfs, gvfs's FUSE view, rclone): a folder is judged remote by
/// its file system's type, never by its path (issue 22: read cheaply, thumbnails cheap first).
public struct SystemMounts: Sendable {
    /// The file system types that are the kernel's views, not storage.
    static let virtualTypes: Set<String> = [
        "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore",
        "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "autofs", "efivarfs", "rpc_pipefs",
        "nsfs", "selinuxfs",
    ]

    /// Network file systems by their kernel type.
    static let networkTypes: Set<String> = [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "ceph", "glusterfs", "lustre", "gfs2", "ocfs2",
        "coda",
    ]
    /// FUSE file systems whose files are local (an encrypted folder, the document portal's view,
    /// a container's /proc): every other FUSE mount is taken as remote (sshfs, gvfsd-fuse,
    /// rclone, s3fs, davfs2, gdrive … are all fuse.NAME, and new ones keep coming).
    static let localFUSETypes: Set<String> = [
        "fuse.portal", "fuse.gocryptfs", "fuse.encfs", "fuse.cryfs", "fuse.securefs", "fuse.lxcfs", "fuse.bindfs",
        "fuse.mergerfs", "fuse.unionfs", "fuse.unionfs-fuse", "fuse.squashfuse", "fuse.fuse-overlayfs", "fuse.appimagefuse",
        "fuse.ntfs-3g", "fuseblk", "fuse.exfat", "fuse.ext4fuse", "fuse.archivemount", "fuse.fuse-zip",
    ]

    /// Whether files of a mount of `type` live on another machine.
    static func isRemote(type: String) -> Bool {
        if networkTypes.contains(type) { return true }
        return type.hasPrefix("fuse.") && !localFUSETypes.contains(type)
    }

    public let virtualMountPoints: Set<FilePath>
    /// The mount points of remote file systems, with their type ("nfs4", "fuse.sshfs" …).
    public let remoteMounts: [FilePath: String]
    /// Every mount point, the deepest first (which mount a folder is on).
    private let mountPoints: [(point: FilePath, type: String)]

    public init(virtualMountPoints: Set<FilePath>) {
        self.virtualMountPoints = virtualMountPoints
        remoteMounts = [:]
        mountPoints = []
    }

    /// This process's mounts, read once (mounts rarely change while a scan runs).
    public static let current = SystemMounts(mountInfo: readMountInfo())

    /// The mounts as they are now (a NAS mounted since the program started is in it).
    public static func now() -> SystemMounts { SystemMounts(mountInfo: readMountInfo()) }

    /// Parses /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS … - TYPE SOURCE …",
    /// with spaces and the like in paths written as octal escapes (\040).
    public init(mountInfo: [UInt8]) {
        var points: Set<FilePath> = [], remote: [FilePath: String] = [:], all: [FilePath: String] = [:]
        for line in mountInfo.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count > 4, let dash = fields.firstIndex(where: { $0.elementsEqual([UInt8(ascii: "-")]) }),
                  dash + 1 < fields.count else { continue }
            let type = String(decoding: fields[dash + 1], as: UTF8.self)
            let point = FilePath(bytes: Self.unescaped(Array(fields[4])))
            // (A later line mounted over the same point hides the earlier: the table is in order.)
            all[point] = type
            if Self.virtualTypes.contains(type) { points.insert(point) }
            if Self.isRemote(type: type) { remote[point] = type } else { remote[point] = nil }
        }
        virtualMountPoints = points
        remoteMounts = remote
        mountPoints = all.map { ($0.key, $0.value) }.sorted { $0.point.bytes.count > $1.point.bytes.count }
    }

    /// The type of the remote file system `folder` is on (its deepest mount), or nil when it is
    /// on this machine's own storage. `folder` is taken as written: resolve links first.
    public func remoteType(of folder: FilePath) -> String? {
        guard let mount = mountPoints.first(where: { folder == $0.point || folder.relative(to: $0.point) != nil }) else { return nil }
        return Self.isRemote(type: mount.type) ? mount.type : nil
    }

    /// Whether `folder`, or where its links lead, is on a remote file system.
    public func isRemote(_ folder: FilePath) -> Bool {
        remoteType(of: folder) != nil || remoteType(of: Self.resolved(folder)) != nil
    }

    /// Whether `folder` is one of them (a walk does not enter it).
    public func isVirtual(_ folder: FilePath) -> Bool { virtualMountPoints.contains(folder) }

    /// Whether `folder`, found below `root` whose links resolve to `resolvedRoot`, is one of them:
    /// a root that is a link to /proc (or to /, holding proc) is judged where it leads. Such a
    /// root read 31,876 files of /proc, /proc/kmsg among them.
    func isVirtual(_ folder: FilePath, below root: FilePath, resolvedRoot: FilePath) -> Bool {
        if isVirtual(folder) { return true }
        guard resolvedRoot != root, let relative = folder.relative(to: root) else { return false }
        return isVirtual(relative.isEmpty ? resolvedRoot : resolvedRoot.appending(relative))
    }

    /// The virtual mount points inside `root`, or inside where its links lead, for saying once
    /// what is left out.
    public func virtual(inside root: FilePath) -> [FilePath] {
        let resolved = Self.resolved(root)
        return virtualMountPoints.filter { point in
            [root, resolved].contains { point == $0 || point.relative(to: $0) != nil }
        }.sorted()
    }

    /// `folder` with every link in it resolved (itself when it cannot be: missing, unreadable).
    static func resolved(_ folder: FilePath) -> FilePath {
        guard let real = folder.withCString({ realpath($0, nil) }) else { return folder }
        defer { free(real) }
        return FilePath(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(real).assumingMemoryBound(to: UInt8.self), count: strlen(real))))
    }

    private static func unescaped(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\\"), index + 3 < bytes.count,
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 3)], as: UTF8.self), radix: 8) {
                result.append(value)
                index += 4
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    private static func readMountInfo() -> [UInt8] {
        let fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            data += buffer[..<count]
        }
        return data
    }
}
