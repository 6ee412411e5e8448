/* edges: a slice's dependence edges and members, held out of memory as
 * blocks (blocks.h) with a coder each: an edge's columns (from - to, to's
 * delta, addr's delta, rbp_off, the packed rest), a member's delta.
 * Readers go through slice_edge_at and slice_member_at (slice.h). */
#ifndef QZ_SLICE_EDGES_H
#define QZ_SLICE_EDGES_H

#include "blocks.h"

extern const struct blocks_coder edges_coder, members_coder;

#endif
