/* sys: the system-call table moved to core/proc/sys.h (ckpt/ reads it
 * too); slice's files include it by this name. */
#include "proc/sys.h"
