/* detect: bug detectors from short specifications (the .spec files of detect/specs,
 * spec.h) run over the whole program on heap events, stopping it like a
 * breakpoint with a report when a condition holds. */
#ifndef DETECT_H
#define DETECT_H

#include "target/mod.h"

extern const struct qz_mod detect_mod;

#endif
