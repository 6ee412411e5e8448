/* TEMP platform stub (the lead replaces it with the real probe). */
#include "platform.h"

#include <stdlib.h>

bool platform_dr_usable(void) { return getenv("QZ_TMP_DR") != NULL; }
