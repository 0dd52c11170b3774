// libadwaita 1.2 (Debian 12): the application, style manager, header bar, toasts and status
// pages that make the picker follow the desktop's light, dark and high-contrast styles.
#include <adwaita.h>
