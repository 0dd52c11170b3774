// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PhotopickCommands

// photopick [COMMAND] [OPTIONS]: everything is in PhotopickCommands.
exit(run())
