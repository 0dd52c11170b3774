// SPDX-License-Identifier: LGPL-2.1-or-later
/// Photopick's version: what `--version` prints and libphotopick-1 reports, the newest release
/// of the metainfo and meson's project version (tests keep them equal).
public let photopickVersion = "0.2.0"
