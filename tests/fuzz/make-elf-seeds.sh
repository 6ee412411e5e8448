#!/bin/sh
# Regenerate the ELF seeds of fuzz_elf in tests/fuzz/seeds/elf/: small
# fixture programs (tests/fixtures), tiny libc-free builds of
# tests/fuzz/tiny.c in several DWARF shapes, and truncated and corrupted
# copies (bad headers, section table, .debug_info, .debug_line,
# .debug_abbrev, .eh_frame). Each seed stays under 30 KB. Crash
# regression seeds (crash-*) found by fuzzing are kept as they are.
cd "$(dirname "$0")/../.."
S=tests/fuzz/seeds/elf
T=tests/build/fuzz/seedtmp
mkdir -p $S $T
rm -f $S/prog-* $S/tiny-* $S/cut-* $S/bad-*

gcc -g -O0 -o $S/prog-basic-O0 tests/fixtures/basic.c
gcc -g -O2 -o $S/prog-basic-O2 tests/fixtures/basic.c
gcc -g -O2 -o $S/prog-multi-O2 tests/fixtures/multi/*.c
gcc -g -O2 -o $S/prog-crash-O2 tests/fixtures/crash.c
TINY="-nostdlib -static -Wl,--build-id=none -Wl,-z,noseparate-code"
gcc -g -O0 $TINY -o $S/tiny-O0 tests/fuzz/tiny.c
gcc -g -O2 $TINY -o $S/tiny-O2 tests/fuzz/tiny.c
gcc -g -O2 -gdwarf-4 $TINY -o $S/tiny-dwarf4 tests/fuzz/tiny.c
gcc -g -O1 -fPIC -shared -nostdlib -Wl,-z,noseparate-code -o $S/tiny-so tests/fuzz/tiny.c
gcc -O2 $TINY -o $S/tiny-nodebug tests/fuzz/tiny.c

# cut NAME SRC LEN: the first LEN bytes of SRC.
cut() { head -c "$3" "$2" > $S/cut-$1; }
# bad NAME SRC OFFSET HEX: SRC with the bytes HEX written at OFFSET.
bad() {
	cp "$2" $S/bad-$1
	printf "$4" | dd of=$S/bad-$1 bs=1 seek="$3" conv=notrunc 2>/dev/null
}
# sec SRC NAME: file offset of section NAME.
sec() {
	off=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk -v n="$2" '$1 == n { print $4 }')
	[ -n "$off" ] && printf '%d\n' "0x$off"
}

src=$S/tiny-O2
size=$(wc -c < $src)
cut elf-header $src 64
cut phdrs $src 200
cut half $src $((size / 2))
cut no-shdrs $src $((size - 64 * 3))
bad class $src 4 '\001'
bad machine $src 18 '\003\000'
bad phoff $src 32 '\377\377\377\377'
bad shoff $src 40 '\377\377\377\377'
bad shnum $src 60 '\377\377'
bad shstrndx $src 62 '\100\000'
for s in .debug_info .debug_line .debug_abbrev .eh_frame .debug_str .debug_rnglists .debug_loclists; do
	off=$(sec $src $s)
	[ -n "$off" ] || continue
	n=$(echo $s | tr -d .)
	bad $n-len $src $off '\377\377\377\177'
	bad $n-ver $src $((off + 4)) '\011\000'
	bad $n-body $src $((off + 12)) '\377\377\377\377\377\377\377\377'
done
ls -l $S | awk 'NR > 1 && $5 >= 30720 { print "too big: " $9; bad = 1 } END { exit bad }'
