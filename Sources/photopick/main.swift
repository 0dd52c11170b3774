import Glibc
import PhotopickCommands

// photopick [COMMAND] [OPTIONS]: everything is in PhotopickCommands.
exit(run())
