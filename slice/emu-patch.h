/* emu-patch.h: Unicorn 2.0.1's store path, mended in its own code.
 *
 * Unicorn 2.0.1 stubs QEMU's dirty-page tracking: every page it maps
 * writable counts as holding translated code forever, so every guest
 * store leaves the translated code for a helper that looks for code to
 * invalidate (page_collection_lock, a GTree made and freed each time):
 * about 60 ns a store against 2 (sed over 30,000 lines under `detect on`
 * made 27 million). The fix (Unicorn 2.1) is not in Debian 12, so the
 * one instruction that marks such pages is made a no-op in the loaded
 * library, found by its exact bytes. Stores into a page that is writable
 * and executable must still find the code they change: the first such
 * mapping puts the original instruction back for good. */
#ifndef SLICE_EMU_PATCH_H
#define SLICE_EMU_PATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Before a machine is made: patch the library if allowed and found. */
void emu_patch_stores(void);

/* A writable and executable mapping is about to be mapped: stores must
 * see the code again (the library's own instruction back). False if the
 * instruction could not be put back: the mapping must stay out of the
 * machine (its instructions then run on the CPU). */
bool emu_stores_exact(void);

/* maint emulator-stores fast|exact|stuck: allow the patch (the default)
 * or put the original back; stuck (the tests') makes putting it back
 * fail from now on. False with a reason in why if fast cannot be had. */
bool emu_patch_allow(bool on, char *why, size_t whylen);
void emu_patch_stuck(void);

/* One line for maint emulator-stores: the path stores take and why. */
const char *emu_patch_state(void);

#endif
