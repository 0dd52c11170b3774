// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import Synchronization

/// Whether a path is on another machine: the one judge of it in a process (the picker's cloud
/// badges and its downloads of picks, the thumbnail loader's turns for downloads). A location
/// URI (`sftp://…`) is; a file is when the file system its folder is on is a network or FUSE one
/// (SystemMounts: NFS, SMB, sshfs, gvfs's FUSE view, rclone). Judged by the path as written,
/// without resolving links: it is asked on the GTK thread, where a `stat` of a hung NFS
/// server's folder would freeze the window. Each folder is judged once, from the mount table as
/// it was read last (`reread()`).
public final class RemotePaths: Sendable {
    /// This process's judge.
    public static let shared = RemotePaths()

    private struct State {
        var mounts: SystemMounts?
        var folders: [FilePath: Bool] = [:]
    }
    private let state = Mutex(State())
    private let readMounts: @Sendable () -> SystemMounts

    /// `readMounts` gives the mount table (tests give one of their own).
    public init(readMounts: @escaping @Sendable () -> SystemMounts = { SystemMounts.now() }) {
        self.readMounts = readMounts
    }

    public func isRemote(_ path: FilePath) -> Bool {
        if path.isLocationURI { return true }
        let folder = path.parent
        return state.withLock { state in
            if let known = state.folders[folder] { return known }
            if state.mounts == nil { state.mounts = readMounts() }
            let remote = state.mounts?.remoteType(of: folder) != nil
            state.folders[folder] = remote
            return remote
        }
    }

    /// Reads the mount table again at the next question: a picker made after a NAS was mounted
    /// sees it (each picker asks for this as it starts).
    public func reread() {
        state.withLock { $0 = State() }
    }
}
