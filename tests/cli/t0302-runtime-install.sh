#!/bin/sh
# libmemplan as installed: the library, its header and memplan.pc under
# DESTDIR/PREFIX; a program built with pkg-config against them follows a
# plan through the C API; the manual lists every MEMPLAN_* variable of the
# options table and every statistic, and nothing else.
. tests/cli/lib.sh

make -s install BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/opt/mp >"$T/out" 2>"$T/err"
ok $? "make install with DESTDIR and PREFIX"
P=$T/stage/opt/mp
[ -f "$P/lib/libmemplan.so.0" ] && [ -L "$P/lib/libmemplan.so" ]
ok $? "libmemplan.so.0 and its libmemplan.so link in LIBDIR"
[ -f "$P/include/memplan.h" ]
ok $? "memplan.h in INCLUDEDIR"
[ -f "$P/lib/pkgconfig/memplan.pc" ]
ok $? "memplan.pc in LIBDIR/pkgconfig"
[ -f "$P/share/man/man3/libmemplan.3" ] && [ -f "$P/share/man/man1/memplan-replay.1" ]
ok $? "libmemplan(3) and memplan-replay(1) installed"

cat >"$T/prog.c" <<'EOF'
#include <memplan.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[512];
	struct mp_options o;
	mp_options_init(&o);
	o.backend = MP_BACKEND_HOST;
	mp_runtime *rt = mp_open(argv[1], &o, err, sizeof(err));
	if (!rt) {
		fprintf(stderr, "prog: %s\n", err);
		return 1;
	}
	for (int it = 0; it < 3; it++) {
		mp_iteration_begin(rt);
		void *a = mp_alloc(rt, 65536, NULL), *c = mp_alloc(rt, 32768, NULL);
		void *b = mp_alloc(rt, 65536, NULL);
		mp_free(rt, b, NULL);
		void *e = mp_alloc(rt, 16384, NULL);
		mp_free(rt, a, NULL);
		mp_free(rt, c, NULL);
		mp_free(rt, e, NULL);
		if (!mp_iteration_end(rt))
			return 1;
	}
	struct mp_stats s;
	mp_stats_get(rt, &s);
	mp_stats_print(&s, stdout, 1);
	mp_close(rt);
	return 0;
}
EOF
"$BUILD/tests/cuda/fixtures" "$T" 2>"$T/err"
PKG_CONFIG_PATH=$P/lib/pkgconfig
export PKG_CONFIG_PATH
flags=$(pkg-config --define-prefix --cflags --libs memplan 2>"$T/err")
ok $? "pkg-config finds memplan"
# a sanitizer-built library needs its runtimes linked and first
san=$(ldd "$P/lib/libmemplan.so.0" 2>/dev/null | awk '/lib(asan|ubsan)\./ { printf "%s ", $3 }')
sanflags=$(echo "$san" | grep -q asan && echo "-fsanitize=address")
${CC:-cc} -std=c11 -o "$T/prog" "$T/prog.c" $sanflags $flags 2>"$T/err"
ok $? "a C program builds against the installed header and library"
LD_LIBRARY_PATH=$P/lib "$T/prog" "$T/swap.plan" >"$T/out" 2>"$T/err"
ok $? "  ... and follows a plan with swaps through the C API"
has "$T/out" '"planned_allocs": 12' "  ... every request of its 3 iterations from the pool"
has "$T/out" '"swaps_in": 3' "  ... with the swaps"

# the manual against the code
sed -n 's/.*\[OPT_[A-Z_]*\] = { "\(MEMPLAN_[A-Z_]*\)".*/\1/p' runtime/options.c | sort >"$T/vars.code"
awk '/^\.SH ENVIRONMENT/ { on = 1; next } /^\.SH / { on = 0 }
     on && prev == ".TP" && /^\.B MEMPLAN_/ { print $2 } { prev = $0 }' man/libmemplan.3 | sort >"$T/vars.man"
[ -s "$T/vars.code" ] && cmp -s "$T/vars.code" "$T/vars.man"
ok $? "libmemplan(3) ENVIRONMENT lists exactly the options table's variables"
diff "$T/vars.code" "$T/vars.man" | sed 's/^/#   /'
sed -n 's/^[[:space:]]*X(\([a-z_]*\),.*/\1/p' runtime/memplan.h | sort >"$T/stats.code"
awk '/^\.SH STATISTICS/ { on = 1; next } /^\.SH / { on = 0 }
     on && prev == ".TP" && /^\.B [a-z_]+$/ { print $2 } { prev = $0 }' man/libmemplan.3 | sort >"$T/stats.man"
[ -s "$T/stats.code" ] && cmp -s "$T/stats.code" "$T/stats.man"
ok $? "libmemplan(3) STATISTICS lists exactly MP_STATS"
diff "$T/stats.code" "$T/stats.man" | sed 's/^/#   /'

make -s uninstall BUILD="$BUILD" DESTDIR="$T/stage" PREFIX=/opt/mp >"$T/out" 2>"$T/err"
ok $? "make uninstall"
[ -z "$(find "$T/stage" -type f -o -type l)" ]
ok $? "uninstall removes the library, its link, header and memplan.pc"

done_testing
