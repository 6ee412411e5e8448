#!/bin/sh
# Every theme is readable: each element's text against its background has
# a WCAG 2 contrast ratio of at least 4.5, computed from the theme files
# with xterm's palette, both as written (256 colours) and folded to the 8
# basic colours as tui/theme.c folds them (theme_fold: a bright text colour
# becomes its basic one in bold, which 8-colour terminals show bright; a
# bright background has no such help). `default` is the
# theme's own default element; where that is the terminal's, a dark
# terminal (light grey on black) is assumed. `reverse` swaps the pair.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

check_theme() {
	awk -v theme="$1" '
	function hex(h) { return ("0x" h) + 0 }
	function setrgb(i, r, g, b) { R[i] = r; G[i] = g; Bl[i] = b }
	function palette(   i, lv, r, g, b, v) {
		split("0 0 0;205 0 0;0 205 0;205 205 0;0 0 238;205 0 205;0 205 205;229 229 229;" \
		      "127 127 127;255 0 0;0 255 0;255 255 0;92 92 255;255 0 255;0 255 255;255 255 255",
		      basic, ";")
		for (i = 0; i < 16; i++) { split(basic[i + 1], c, " "); setrgb(i, c[1], c[2], c[3]) }
		split("0 95 135 175 215 255", lv, " ")
		for (i = 16; i < 232; i++) {
			v = i - 16
			setrgb(i, lv[int(v / 36) + 1], lv[int(v / 6) % 6 + 1], lv[v % 6 + 1])
		}
		for (i = 232; i < 256; i++) setrgb(i, 8 + 10 * (i - 232), 8 + 10 * (i - 232), 8 + 10 * (i - 232))
	}
	function num(s,   i) {
		if (s == "default") return -1
		for (i = 0; i < 8; i++) if (s == names[i]) return i
		for (i = 0; i < 8; i++) if (s == "bright-" names[i]) return i + 8
		if (s ~ /^color[0-9]+$/) return substr(s, 6) + 0
		return -2
	}
	function fold(c, isfg,   v, r, g, b, hi) {   # theme_fold for 8 colours
		if (c < 8) return c
		if (c < 16) return isfg ? c : c - 8   # text: its A_BOLD shows it bright
		if (c >= 232) return c >= 244 ? 7 : 0
		v = c - 16; r = int(v / 36); g = int(v / 6) % 6; b = v % 6
		hi = r > g ? (r > b ? r : b) : (g > b ? g : b)
		if (hi < 2) return 0
		return (r * 2 >= hi * 2 && r >= hi) + 2 * (g >= hi) + 4 * (b >= hi)
	}
	function lin(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ^ 2.4 }
	function lum(c) { return 0.2126 * lin(R[c]) + 0.7152 * lin(G[c]) + 0.0722 * lin(Bl[c]) }
	function ratio(a, b,   la, lb) {
		la = lum(a); lb = lum(b)
		return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05)
	}
	BEGIN { split("black red green yellow blue magenta cyan white", n0, " ")
		for (i = 0; i < 8; i++) names[i] = n0[i + 1]
		palette(); dfg = 7; dbg = 0; bad = 0; n = 0 }
	$1 == "color" && $2 == "default" {
		if ($3 != "default") dfg = num($3)
		if ($4 != "default") dbg = num($4)
	}
	$1 == "color" { el[++n] = $2; fg[n] = $3; bg[n] = $4; rev[n] = ($0 ~ / reverse/) }
	END {
		for (i = 1; i <= n; i++) {
			f = fg[i] == "default" ? dfg : num(fg[i])
			b = bg[i] == "default" ? dbg : num(bg[i])
			if (f < 0 || b < 0) { print "bad colour in " el[i]; bad++; continue }
			if (rev[i]) { t = f; f = b; b = t }
			r256 = ratio(f, b); r8 = ratio(fold(f, 1), fold(b, 0))
			if (r256 < 4.5 || r8 < 4.5) {
				printf "%s: %s %s on %s: %.2f (8 colours: %.2f)\n", theme, el[i], fg[i], bg[i], r256, r8
				bad++
			}
		}
		if (n < 10) { print theme ": only " n " elements"; bad++ }
		exit bad > 0
	}' "$2"
}

for f in themes/*.theme; do
	name=$(basename "$f" .theme)
	if out=$(check_theme "$name" "$f"); then
		pass "contrast $name: every element at least 4.5:1 in 256 and 8 colours"
	else
		fail "contrast $name" "$out"
	fi
done

# The check itself can fail: a low-contrast pair is caught.
printf 'color default default default\ncolor title color250 color255\n' > "${TMPDIR:-/tmp}/qz-low.theme"
for i in 1 2 3 4 5 6 7 8 9; do echo "color e$i white black" >> "${TMPDIR:-/tmp}/qz-low.theme"; done
if check_theme low "${TMPDIR:-/tmp}/qz-low.theme" >/dev/null; then
	fail "contrast check catches grey on white" "passed"
else
	pass "contrast check catches grey on white"
fi
rm -f "${TMPDIR:-/tmp}/qz-low.theme"
