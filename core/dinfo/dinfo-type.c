/* dinfo-type: DWARF type DIEs as struct di_type, memoised by DIE offset so
 * that recursive types (struct node { struct node *next; }) terminate:
 * a type is entered in the memo before its targets and members are read.
 * Types are read when first referred to or asked for by name: di_open
 * only notes the names of the top-level type DIEs (di_type_index). */
#include "dinfo-int.h"
#include "util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRIP 64         /* typedef/cv chains longer than this are loops */
#define MAX_FIXUP_PASSES 16

static const struct di_type void_type = {
	.kind = DI_VOID, .name = "void", .size = 1,
};

const struct di_type *di_void_type(void)
{
	return &void_type;
}

static struct di_type *new_type(struct di_info *di, Dwarf_Off off,
				enum di_kind kind, Dwarf_Die die)
{
	struct di_type *t = di_alloc(di, sizeof(*t));
	char *name = NULL;
	Dwarf_Error e = NULL;
	uint64_t size;
	t->kind = kind;
	if (dwarf_diename(die, &name, &e) == DW_DLV_OK)
		t->name = di_strdup(di, name);
	if (!di_attr_u64(die, DW_AT_byte_size, &size))
		t->size = size;
	t->declaration = di_attr_flag(die, DW_AT_declaration);
	hmap_put(&di->types, off, t);
	XGROW(di->alltypes, di->capalltypes, di->nalltypes + 1);
	di->alltypes[di->nalltypes++] = t;
	return t;
}

/* The index key of a type name: "struct node", "node_t"; in buf if it
 * fits, else allocated (free it when it is not buf). */
static char *type_key(char *buf, size_t len, const char *prefix, const char *name)
{
	/* by hand: every top-level type of every unit passes here at startup
	 * (snprintf was a fifth of indexing them) */
	size_t p = prefix ? strlen(prefix) + 1 : 0, n = strlen(name);
	char *k = p + n < len ? buf : xmalloc(p + n + 1);
	if (prefix) {
		memcpy(k, prefix, p - 1);
		k[p - 1] = ' ';
	}
	memcpy(k + p, name, n + 1);
	return k;
}

/* Note that key names the type at off; a complete type beats a
 * declaration, otherwise the first one stays. */
static struct di_tname *note_name(struct di_info *di, const char *key, Dwarf_Off off,
				  bool declaration, bool base)
{
	struct di_tname *tn = hmap_sget(&di->named, key);
	if (tn) {
		if (tn->declaration && !declaration) {
			tn->off = off;
			tn->type = NULL;
			tn->declaration = false;
		}
		return tn;
	}
	tn = di_alloc(di, sizeof(*tn));
	tn->key = di_strdup(di, key);
	tn->off = off;
	tn->declaration = declaration;
	hmap_sput(&di->named, tn->key, tn);
	if (base) {
		XGROW(di->bases, di->capbases, di->nbases + 1);
		di->bases[di->nbases++] = tn;
	}
	return tn;
}

/* Index t, just read from off, under its C spelling. */
static void register_name(struct di_info *di, const struct di_type *t, Dwarf_Off off,
			  const char *prefix)
{
	char buf[256];
	if (!t->name)
		return;
	char *key = type_key(buf, sizeof buf, prefix, t->name);
	struct di_tname *tn = note_name(di, key, off, t->declaration, t->kind == DI_BASE);
	if (tn->off == off)
		tn->type = t;
	if (key != buf)
		free(key);
}

static const char *tag_prefix(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type: return "struct";
	case DW_TAG_union_type: return "union";
	case DW_TAG_enumeration_type: return "enum";
	default: return NULL;
	}
}

void di_type_index(struct di_info *di, Dwarf_Die die, Dwarf_Half tag, bool declaration)
{
	char *name = NULL, buf[256];
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	const char *prefix = tag_prefix(tag);
	bool decl = prefix && declaration;
	if (!prefix && tag != DW_TAG_typedef && tag != DW_TAG_base_type)
		return;
	dwarf_dieoffset(die, &off, &e);
	if (tag == DW_TAG_enumeration_type && !decl) {
		XGROW(di->enum_offs, di->capenum_offs, di->nenum_offs + 1);
		di->enum_offs[di->nenum_offs++] = off;
	}
	if (dwarf_diename(die, &name, &e) != DW_DLV_OK)
		return;
	char *key = type_key(buf, sizeof buf, prefix, name);
	note_name(di, key, off, decl, tag == DW_TAG_base_type);
	if (key != buf)
		free(key);
}

const struct di_type *di_type_of(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Off off;
	if (di_attr_ref(die, DW_AT_type, &off))
		return &void_type;
	return di_type_at(di, off);
}

/* A constant-class attribute (not an expression or reference, as a VLA
 * bound would be). */
static int attr_const(Dwarf_Die die, Dwarf_Half at, int64_t *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Half form = 0;
	Dwarf_Error e = NULL;
	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK)
		return -1;
	dwarf_whatform(a, &form, &e);
	dwarf_dealloc_attribute(a);
	switch (form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4:
	case DW_FORM_data8: case DW_FORM_udata:
	case DW_FORM_sdata: case DW_FORM_implicit_const:
		return di_attr_s64(die, at, out);
	default:
		return -1;
	}
}

static uint64_t read_uleb(const uint8_t *p, size_t len)
{
	uint64_t v = 0;
	for (size_t i = 0, shift = 0; i < len && shift < 64; i++, shift += 7) {
		v |= (uint64_t)(p[i] & 0x7f) << shift;
		if (!(p[i] & 0x80))
			break;
	}
	return v;
}

/* DW_AT_data_member_location: a constant, or in old DWARF an expression
 * "DW_OP_plus_uconst N". */
static uint64_t member_location(struct di_info *di, Dwarf_Die die)
{
	int64_t v;
	Dwarf_Attribute a = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Block *blk = NULL;
	uint64_t off = 0;
	if (!attr_const(die, DW_AT_data_member_location, &v))
		return (uint64_t)v;
	if (dwarf_attr(die, DW_AT_data_member_location, &a, &e) != DW_DLV_OK)
		return 0;
	if (dwarf_formblock(a, &blk, &e) == DW_DLV_OK) {
		const uint8_t *p = blk->bl_data;
		if (blk->bl_len > 1 && p[0] == DW_OP_plus_uconst)
			off = read_uleb(p + 1, blk->bl_len - 1);
		dwarf_dealloc(di->dbg, blk, DW_DLA_BLOCK);
	}
	dwarf_dealloc_attribute(a);
	return off;
}

static void read_member(struct di_info *di, Dwarf_Die die, struct di_member *m)
{
	char *name = NULL;
	Dwarf_Error e = NULL;
	int64_t bits = 0, dbo, bo, storage;
	if (dwarf_diename(die, &name, &e) == DW_DLV_OK)
		m->name = di_strdup(di, name);
	m->type = di_type_of(di, die);
	m->offset = member_location(di, die);
	if (attr_const(die, DW_AT_bit_size, &bits) || bits <= 0)
		return;
	m->bit_size = (int)bits;
	if (!attr_const(die, DW_AT_data_bit_offset, &dbo)) {
		dbo += (int64_t)m->offset * 8;
	} else if (!attr_const(die, DW_AT_bit_offset, &bo)) {
		/* DWARF 2-4: counted from the most significant bit of a storage
		 * unit of byte_size (or the type's size), little-endian here. */
		if (attr_const(die, DW_AT_byte_size, &storage))
			storage = (int64_t)di_type_strip(m->type)->size;
		dbo = (int64_t)m->offset * 8 + storage * 8 - bo - bits;
	} else {
		dbo = (int64_t)m->offset * 8;
	}
	m->offset = (uint64_t)dbo / 8;
	m->bit_offset = (int)(dbo % 8);
}

static void read_struct(struct di_info *di, Dwarf_Die die, struct di_type *t)
{
	struct di_member *ms = NULL;
	size_t n = 0, cap = 0;
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		if (di_tag(c) != DW_TAG_member) {
			di_type_visit(di, c);   /* nested struct definitions */
			continue;
		}
		XGROW(ms, cap, n + 1);
		memset(&ms[n], 0, sizeof(*ms));
		read_member(di, c, &ms[n++]);
	}
	t->members = n ? di_memdup(di, ms, n * sizeof(*ms)) : NULL;
	t->nmembers = n;
	free(ms);
}

/* The underlying type's encoding is kept as the enum's (signedness). */
static void read_enum(struct di_info *di, Dwarf_Die die, struct di_type *t)
{
	struct di_enumerator *es = NULL;
	size_t n = 0, cap = 0;
	const struct di_type *under = di_type_strip(di_type_of(di, die));
	t->encoding = under->kind == DI_BASE ? under->encoding : DW_ATE_signed;
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		if (di_tag(c) != DW_TAG_enumerator)
			continue;
		XGROW(es, cap, n + 1);
		es[n].name = di_die_name(di, c);
		es[n].value = 0;
		di_attr_s64(c, DW_AT_const_value, &es[n].value);
		n++;
	}
	t->enums = n ? di_memdup(di, es, n * sizeof(*es)) : NULL;
	t->nenums = n;
	free(es);
	di_add_enumerators(di, t);
}

static uint64_t subrange_count(Dwarf_Die die)
{
	int64_t count, lb = 0, ub;
	if (!attr_const(die, DW_AT_count, &count))
		return count > 0 ? (uint64_t)count : 0;
	if (attr_const(die, DW_AT_upper_bound, &ub))
		return 0;   /* int a[], or a VLA */
	attr_const(die, DW_AT_lower_bound, &lb);
	return ub >= lb ? (uint64_t)(ub - lb + 1) : 0;
}

static void read_array(struct di_info *di, Dwarf_Die die, struct di_type *t)
{
	uint64_t *dims = NULL;
	size_t n = 0, cap = 0;
	t->target = di_type_of(di, die);
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		Dwarf_Half tag = di_tag(c);
		if (tag != DW_TAG_subrange_type && tag != DW_TAG_enumeration_type)
			continue;
		XGROW(dims, cap, n + 1);
		dims[n++] = subrange_count(c);
	}
	t->dims = n ? di_memdup(di, dims, n * sizeof(*dims)) : NULL;
	t->ndims = n;
	free(dims);
}

static void read_functype(struct di_info *di, Dwarf_Die die, struct di_type *t)
{
	const struct di_type **ps = NULL;
	size_t n = 0, cap = 0;
	Dwarf_Off off;
	t->size = 1;          /* gdb's sizeof of a function */
	t->target = di_attr_ref(die, DW_AT_type, &off) ? NULL : di_type_at(di, off);
	for (Dwarf_Die c = di_child(die); c; c = di_next(di, c)) {
		Dwarf_Half tag = di_tag(c);
		if (tag == DW_TAG_unspecified_parameters)
			t->varargs = true;
		if (tag != DW_TAG_formal_parameter)
			continue;
		XGROW(ps, cap, n + 1);
		ps[n++] = di_type_of(di, c);
	}
	t->params = n ? di_memdup(di, ps, n * sizeof(*ps)) : NULL;
	t->nparams = n;
	free(ps);
}

static struct di_type *read_simple(struct di_info *di, Dwarf_Die die,
				   Dwarf_Off off, enum di_kind kind)
{
	struct di_type *t = new_type(di, off, kind, die);
	uint64_t enc;
	if (kind == DI_BASE) {
		if (!di_attr_u64(die, DW_AT_encoding, &enc))
			t->encoding = (int)enc;
		register_name(di, t, off, NULL);
		return t;
	}
	if (kind == DI_PTR && !t->size)
		t->size = 8;
	if (kind == DI_TYPEDEF)
		register_name(di, t, off, NULL);
	if (kind != DI_VOID)
		t->target = di_type_of(di, die);
	else if (!t->size)
		t->size = 1;
	return t;
}

static enum di_kind simple_kind(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_base_type: return DI_BASE;
	case DW_TAG_unspecified_type: return DI_VOID;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: return DI_PTR;
	case DW_TAG_typedef: return DI_TYPEDEF;
	case DW_TAG_const_type: return DI_CONST;
	case DW_TAG_volatile_type: return DI_VOLATILE;
	default: return DI_FUNC;   /* not simple */
	}
}

/* A struct, union or enum only declared here ("struct foo;") is the
 * definition another unit gives, as gdb resolves opaque types; NULL if
 * die is no such declaration or no definition is known. */
static const struct di_type *opaque_definition(struct di_info *di, Dwarf_Die die,
					       Dwarf_Half tag, Dwarf_Off off)
{
	char *name = NULL, buf[256];
	Dwarf_Error e = NULL;
	if (!di_attr_flag(die, DW_AT_declaration) ||
	    dwarf_diename(die, &name, &e) != DW_DLV_OK)
		return NULL;
	char *key = type_key(buf, sizeof buf, tag_prefix(tag), name);
	const struct di_tname *tn = hmap_sget(&di->named, key);
	if (key != buf)
		free(key);
	if (!tn || tn->declaration || tn->off == off)
		return NULL;
	const struct di_type *full = tn->type ? tn->type : di_type_at(di, tn->off);
	enum di_kind want = tag == DW_TAG_union_type ? DI_UNION :
			    tag == DW_TAG_enumeration_type ? DI_ENUM : DI_STRUCT;
	return full->kind == want && !full->declaration ? full : NULL;
}

static const struct di_type *read_type(struct di_info *di, Dwarf_Die die, Dwarf_Off off)
{
	Dwarf_Half tag = di_tag(die);
	struct di_type *t;
	const struct di_type *same;

	switch (tag) {
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		/* No value semantics for a debugger: the qualified type. */
		same = di_type_of(di, die);
		hmap_put(&di->types, off, (void *)same);
		return same;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if ((same = opaque_definition(di, die, tag, off))) {
			hmap_put(&di->types, off, (void *)same);
			return same;
		}
		t = new_type(di, off, tag == DW_TAG_union_type ? DI_UNION : DI_STRUCT, die);
		register_name(di, t, off, tag_prefix(tag));
		read_struct(di, die, t);
		return t;
	case DW_TAG_enumeration_type:
		if ((same = opaque_definition(di, die, tag, off))) {
			hmap_put(&di->types, off, (void *)same);
			return same;
		}
		t = new_type(di, off, DI_ENUM, die);
		register_name(di, t, off, "enum");
		read_enum(di, die, t);
		return t;
	case DW_TAG_array_type:
		t = new_type(di, off, DI_ARRAY, die);
		read_array(di, die, t);
		return t;
	case DW_TAG_subroutine_type:
		t = new_type(di, off, DI_FUNC, die);
		read_functype(di, die, t);
		return t;
	default:
		if (simple_kind(tag) == DI_FUNC)
			return NULL;
		return read_simple(di, die, off, simple_kind(tag));
	}
}

static void fix_types(struct di_info *di);

/* Every type is read through here: when the outermost read is done, the
 * sizes of the types it made are fixed up. */
static const struct di_type *read_type_at(struct di_info *di, Dwarf_Die die, Dwarf_Off off)
{
	di->type_depth++;
	const struct di_type *t = read_type(di, die, off);
	if (--di->type_depth == 0)
		fix_types(di);
	return t;
}

const struct di_type *di_type_at(struct di_info *di, Dwarf_Off off)
{
	const struct di_type *t = hmap_get(&di->types, off);
	if (t)
		return t;
	Dwarf_Die die = di_offdie(di, off);
	if (!die)
		return &void_type;
	t = read_type_at(di, die, off);
	dwarf_dealloc_die(die);
	return t ? t : &void_type;
}

static bool is_type_tag(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		return true;
	default:
		return simple_kind(tag) != DI_FUNC;
	}
}

bool di_type_visit(struct di_info *di, Dwarf_Die die)
{
	Dwarf_Off off = 0;
	Dwarf_Error e = NULL;
	if (!is_type_tag(di_tag(die)))
		return false;
	dwarf_dieoffset(die, &off, &e);
	if (!hmap_get(&di->types, off))
		read_type_at(di, die, off);
	return true;
}

/* Sizes that depend on a target which was still being read when the
 * dependent type was made (a typedef of a struct in progress). */
static bool fix_size(struct di_type *t)
{
	uint64_t size = t->size;
	if (t->kind == DI_TYPEDEF || t->kind == DI_CONST || t->kind == DI_VOLATILE) {
		size = t->target ? t->target->size : 0;
	} else if (t->kind == DI_ARRAY && t->ndims) {
		size = di_type_strip(t->target)->size;
		for (size_t i = 0; i < t->ndims; i++)
			size *= t->dims[i];
		if (!size)
			size = t->size;
	}
	if (size == t->size)
		return false;
	t->size = size;
	return true;
}

/* The types made since the last fix-up are complete now. */
static void fix_types(struct di_info *di)
{
	bool changed = true;
	for (int pass = 0; changed && pass < MAX_FIXUP_PASSES; pass++) {
		changed = false;
		for (size_t i = di->nfixed; i < di->nalltypes; i++)
			changed |= fix_size(di->alltypes[i]);
	}
	di->nfixed = di->nalltypes;
}

const struct di_type *di_type_strip(const struct di_type *t)
{
	for (int i = 0; t && i < MAX_STRIP; i++) {
		if (t->kind != DI_TYPEDEF && t->kind != DI_CONST && t->kind != DI_VOLATILE)
			return t;
		t = t->target;
	}
	return t ? t : &void_type;
}

/* How a base type is spelled, as word counts: "long unsigned int" and
 * "unsigned long" are the same type. */
struct spelling {
	int is_unsigned, is_signed, shorts, longs, chars;
	char other[64];
};

static void spell(const char *name, struct spelling *s)
{
	memset(s, 0, sizeof(*s));
	while (*name) {
		while (isspace((unsigned char)*name))
			name++;
		size_t n = strcspn(name, " \t");
		if (!n)
			break;
		if (n == 8 && !strncmp(name, "unsigned", n))
			s->is_unsigned++;
		else if (n == 6 && !strncmp(name, "signed", n))
			s->is_signed++;
		else if (n == 5 && !strncmp(name, "short", n))
			s->shorts++;
		else if (n == 4 && !strncmp(name, "long", n))
			s->longs++;
		else if (n == 4 && !strncmp(name, "char", n))
			s->chars++;
		else if (!(n == 3 && !strncmp(name, "int", n)) &&
			 strlen(s->other) + n + 2 < sizeof s->other) {
			strncat(s->other, name, n);
			strcat(s->other, " ");
		}
		name += n;
	}
}

static bool same_spelling(const struct spelling *a, const struct spelling *b)
{
	/* "signed" only tells apart signed char from plain char. */
	bool sign_matters = a->chars || b->chars;
	return a->is_unsigned == b->is_unsigned && a->shorts == b->shorts &&
	       a->longs == b->longs && a->chars == b->chars &&
	       (!sign_matters || a->is_signed == b->is_signed) &&
	       !strcmp(a->other, b->other);
}

static const struct di_type *named_type(struct di_info *di, const struct di_tname *tn)
{
	return tn->type ? tn->type : di_type_at(di, tn->off);
}

static const struct di_type *base_by_spelling(struct di_info *di, const char *name)
{
	struct spelling want, have;
	spell(name, &want);
	for (size_t i = 0; i < di->nbases; i++) {
		spell(di->bases[i]->key, &have);
		if (same_spelling(&want, &have))
			return named_type(di, di->bases[i]);
	}
	return NULL;
}

/* Collapse white space runs to one blank, as the index keys are spelled. */
static char *squeeze(const char *s)
{
	struct sbuf b = {0};
	s = str_skip_space(s);
	while (*s) {
		if (isspace((unsigned char)*s)) {
			s = str_skip_space(s);
			if (*s)
				sbuf_addc(&b, ' ');
			continue;
		}
		sbuf_addc(&b, *s++);
	}
	return sbuf_take(&b);
}

const struct di_type *di_type_named(const struct di_info *cdi, const char *name)
{
	struct di_info *di = (struct di_info *)cdi;   /* see struct di_info */
	char *key = squeeze(name);
	const struct di_type *t = NULL;
	const struct di_tname *tn;
	if (!strcmp(key, "void"))
		t = &void_type;
	else if ((tn = hmap_sget(&di->named, key)))
		t = named_type(di, tn);
	else if (!str_starts(key, "struct ") && !str_starts(key, "union ") &&
		 !str_starts(key, "enum "))
		t = base_by_spelling(di, key);
	free(key);
	return t;
}
